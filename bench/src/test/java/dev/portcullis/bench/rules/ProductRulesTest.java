package dev.portcullis.bench.rules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.FileOutputStream;
import java.io.FileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build's rules on the product's code (every module but the bench harness, the examples and the
 * test lab). Bench sees every module, so the rules live here.
 */
class ProductRulesTest {
  private static final JavaClasses PRODUCT =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.portcullis")
          .that(
              DescribedPredicate.not(
                  JavaClass.Predicates.resideInAnyPackage(
                      "dev.portcullis.bench..",
                      "dev.portcullis.examples..",
                      "dev.portcullis.tunnel.lab..",
                      // the native provider is loaded while a security provider is being built:
                      // it depends on nothing of ours, and makes its one file owner-only itself
                      "dev.portcullis.nativecrypto..")));

  /**
   * One way to create a file or a directory (docs/security.md, principles 4 and 9): through
   * support's OwnedFile, DurableFiles and SecretFile, owner-only from the first byte, never through
   * a link. Spent-credential marks were created 0644 under the default umask by a Files.write of
   * their own; a class that writes a file's content does it into the file those made for it.
   */
  @Test
  void filesAndDirectoriesAreCreatedOnlyThroughSupport() {
    DescribedPredicate<JavaCall<?>> filesCreating =
        JavaCall.Predicates.target(With.owner(JavaClass.Predicates.equivalentTo(Files.class)))
            .and(
                JavaCall.Predicates.target(
                    HasName.Predicates.nameMatching(
                        "createDirectories|createDirectory|createFile|write|writeString|copy")));
    DescribedPredicate<JavaCall<?>> streamsCreating =
        JavaCall.Predicates.target(
            With.owner(
                JavaClass.Predicates.assignableTo(FileOutputStream.class)
                    .or(JavaClass.Predicates.assignableTo(FileWriter.class))));
    ArchRule rule =
        noClasses()
            .that()
            .resideOutsideOfPackages("dev.portcullis.support")
            .should()
            .callCodeUnitWhere(filesCreating.or(streamsCreating))
            .because(
                "a file or directory is created owner-only through support's OwnedFile,"
                    + " DurableFiles or SecretFile (docs/security.md, principle 13)");
    rule.check(PRODUCT);
  }

  /**
   * Packages form layers, never a circle (docs/architecture.md): a package that needs one of its
   * sub-packages is never needed by it. The three circles this rule found (the registry's root and
   * its config and known-answer packages through the Algorithm enum; pdp and pdp.tunnel through a
   * glob helper) were cut by moving the shared piece below both.
   */
  @Test
  void packagesHaveNoCycles() {
    slices()
        .matching("dev.portcullis.(**)")
        .should()
        .beFreeOfCycles()
        .because("a package and its sub-packages are layers (docs/architecture.md)")
        .check(PRODUCT);
  }

  /**
   * The wall clock is given, never taken (docs/architecture.md, "Time"): a class reads the system
   * clock only where a program is composed (its command line, a demo), in the defaults of a
   * server's or store's static factory ({@code start}, {@code open}, {@code create}, {@code bind})
   * or a builder, and in the development PKI, whose certificates start at the real now. Elsewhere
   * it reads the clock it was given, which a test moves instead of sleeping. The log summaries of
   * the PCMM server, the proxy and the accept handlers, and the audit log's timestamps, took the
   * system clock themselves before this rule.
   */
  @Test
  void theWallClockIsGivenNotTaken() {
    Set<String> factories = Set.of("start", "open", "create", "bind");
    DescribedPredicate<JavaCodeUnit> composing =
        DescribedPredicate.describe(
            "where a program is composed or a factory fills in its default",
            u ->
                u.getOwner().getPackageName().endsWith(".cli")
                    || u.getOwner().getSimpleName().endsWith("Demo")
                    || u.getOwner().getSimpleName().equals("Builder")
                    || u.getOwner().getSimpleName().equals("DevCertificates")
                    || (u.getModifiers().contains(JavaModifier.STATIC)
                        && factories.contains(u.getName())));
    DescribedPredicate<JavaCall<?>> readsTheSystemClock =
        DescribedPredicate.describe(
            "reads the system's wall clock",
            c -> {
              String owner = c.getTarget().getOwner().getFullName();
              String name = c.getTarget().getName();
              return (owner.equals(Clock.class.getName())
                      && (name.equals("systemUTC") || name.equals("systemDefaultZone")))
                  || (owner.equals(System.class.getName()) && name.equals("currentTimeMillis"))
                  || (name.equals("now")
                      && c.getTarget().getRawParameterTypes().isEmpty()
                      && owner.startsWith("java.time."));
            });
    ArchCondition<JavaCodeUnit> notReadIt =
        new ArchCondition<>("not read the system's wall clock") {
          @Override
          public void check(JavaCodeUnit u, ConditionEvents events) {
            for (JavaCall<?> c : u.getCallsFromSelf()) {
              if (readsTheSystemClock.test(c)) {
                events.add(
                    SimpleConditionEvent.violated(
                        u, c.getDescription() + ": give it a Clock instead"));
              }
            }
          }
        };
    codeUnits()
        .that(DescribedPredicate.not(composing))
        .should(notReadIt)
        .because("the wall clock is given where a program is composed (docs/architecture.md)")
        .check(PRODUCT);
  }

  /**
   * Time is waited on through a scheduler, an event loop's timer or a notification, never by
   * sleeping (docs/architecture.md, "Time"): a test moves those, not a sleep. Command lines and
   * demos pace their own output. Two waits are not converted yet and are named here so that no
   * third joins them: the Authorization Server's retry of a Code Server it cannot reach ({@code
   * KciEpochs}, under its rotation's lock) and the wait for a lock file another process, or this
   * one, holds ({@code OwnedFile}: a blocking lock cannot wait on a holder in this JVM).
   */
  @Test
  void nothingSleeps() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..cli..")
        .and()
        .haveSimpleNameNotEndingWith("Demo")
        .and()
        .doNotHaveFullyQualifiedName("dev.portcullis.active.auth.KciEpochs")
        .and()
        .doNotHaveFullyQualifiedName("dev.portcullis.support.OwnedFile")
        .should()
        .callMethod(Thread.class, "sleep", long.class)
        .orShould()
        .callMethod(Thread.class, "sleep", long.class, int.class)
        .orShould()
        .callMethod(TimeUnit.class, "sleep", long.class)
        .because(
            "time is waited on through a scheduler, a timer or a notification (docs/architecture.md)")
        .check(PRODUCT);
  }

  /**
   * Idle timeouts (keep-alive timers, the proxy's idle cut) run on the loop's timer alone, through
   * {@code support.IdleWatch}, so a test moves them with the loop's time (docs/architecture.md,
   * "Time"): Netty 4.1's {@code IdleStateHandler} reads {@code System.nanoTime} itself, and the
   * tests of the three that used it could only sleep through it or fire its event by hand.
   */
  @Test
  void idleTimeoutsRunOnTheLoopsTime() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.netty.handler.timeout.IdleStateHandler")
        .because("an idle timeout is watched by support.IdleWatch (docs/architecture.md, \"Time\")")
        .check(PRODUCT);
  }

  /**
   * Every thread the product starts besides Netty's loops (and the JVM's shutdown hooks, which it
   * registers and never starts) is made by {@code support.Threads}: named, a daemon, and most often
   * the one owner of state that has no channel. The same seven lines of thread factory had been
   * copied into fourteen classes.
   */
  @Test
  void threadsAreMadeInOnePlace() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.portcullis.support..")
        .should()
        .callMethod(Thread.class, "start")
        .orShould()
        .callMethod(Thread.class, "setDaemon", boolean.class)
        .because("support.Threads names each thread and makes it a daemon (docs/architecture.md)")
        .check(PRODUCT);
  }

  /**
   * A command's summary in its parent's {@code --help} is the first line of its description (or its
   * header): a whole sentence. Descriptions written as several source lines showed only their first
   * line there, cut mid-sentence ("... ask the PDP once, forward").
   */
  @Test
  void commandSummariesAreWholeSentences() {
    List<String> cut = new ArrayList<>();
    for (JavaClass c : PRODUCT) {
      if (!c.isAnnotatedWith(picocli.CommandLine.Command.class)) {
        continue;
      }
      picocli.CommandLine.Command command =
          c.getAnnotationOfType(picocli.CommandLine.Command.class);
      String[] summary = command.header().length > 0 ? command.header() : command.description();
      if (summary.length > 0 && !summary[0].strip().matches("(?s).*[.:)]$")) {
        cut.add(c.getName() + ": \"" + summary[0] + "\"");
      }
    }
    assertTrue(cut.isEmpty(), "a command's summary is cut mid-sentence in --help: " + cut);
  }

  /**
   * Tests move time instead of sleeping (docs/architecture.md, "Time"): at most four real sleeps
   * are left in the tests of every module, each where the real wait is the thing under test and
   * saying so ("a real wait" in a comment on its line or the three before it). A fifth, or one
   * without its reason, fails here with its file and line. Read from the sources: the other
   * modules' test classes are not on this module's class path.
   */
  @Test
  void testsSleepOnlyWhereTheRealWaitIsUnderTest() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> sleeps = new ArrayList<>();
    List<String> unexplained = new ArrayList<>();
    Pattern sleep = Pattern.compile("\\b(Thread|TimeUnit\\.\\w+)\\.sleep\\(");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f :
          files
              .filter(x -> x.toString().endsWith(".java"))
              .filter(x -> x.toString().contains("/src/test/java/"))
              .filter(x -> !x.toString().contains("/target/"))
              .sorted()
              .toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          if (!sleep.matcher(lines.get(i)).find() || lines.get(i).strip().startsWith("*")) {
            continue;
          }
          String where = root.relativize(f) + ":" + (i + 1);
          sleeps.add(where);
          String context = String.join(" ", lines.subList(Math.max(0, i - 3), i + 1));
          if (!context.contains("real wait")) {
            unexplained.add(where);
          }
        }
      }
    }
    assertTrue(
        unexplained.isEmpty(),
        "a test sleeps without saying why the real wait is under test (move time instead): "
            + unexplained);
    assertTrue(
        sleeps.size() <= 4,
        sleeps.size() + " real sleeps in tests, at most 4 (move time instead): " + sleeps);
  }

  /**
   * A connection's handlers share no mutable type (docs/architecture.md, "Who owns each piece of
   * state"): each handler keeps its own state, and what two handlers both hold is immutable, an
   * interface (a narrow view of another's state) or Netty's. A type is mutable here if it is not a
   * record and has a field that is not final, or a final one holding a collection, a map or an
   * array; the handlers of one pipeline are those of one component (dev.portcullis.pdp and its
   * sub-packages, dev.portcullis.pep and its...), and a channel initializer, which hands the
   * server's things to each connection's handlers, is not one of them. Codec state that a codec's
   * encoder and decoder share by design ({@code IntegritySession}, as Netty's SslHandler shares its
   * engine) lives in the codec's package, apart from any pipeline's handlers. The PDP's handlers
   * shared one such struct, {@code ConnectionState}, whose fields every handler (and the tunnel
   * desk, from its own thread) read and wrote. (The PEP proxy's {@code ProxiedConnection}, under
   * three guards, is not held by two of its handlers but by its admission, revocations and grant
   * anchors: this rule does not see it, docs/architecture.md names it.)
   */
  @Test
  void handlersShareNoMutableType() {
    Map<String, Set<String>> holders = new HashMap<>();
    for (JavaClass h : PRODUCT) {
      if (!h.isAssignableTo("io.netty.channel.ChannelHandler")
          || h.isAssignableTo("io.netty.channel.ChannelInitializer")) {
        continue; // an initializer holds the server's things to hand each connection's handlers
      }
      for (JavaField f : h.getFields()) {
        JavaClass t = f.getRawType();
        if (f.getModifiers().contains(JavaModifier.STATIC)
            || !t.getPackageName().startsWith("dev.portcullis")
            || t.isInterface()
            || t.isEnum()
            || t.isRecord()
            || t.getEnclosingClass().map(h::equals).orElse(false)
            || !mutable(t)) {
          continue;
        }
        // one component's handlers live under one package (dev.portcullis.pdp and below): types
        // held in two components are two instances
        holders
            .computeIfAbsent(t.getName() + " in " + component(h), x -> new TreeSet<>())
            .add(h.getName() + "." + f.getName());
      }
    }
    List<String> shared = new ArrayList<>();
    holders.forEach(
        (t, fields) -> {
          Set<String> classes = new TreeSet<>();
          fields.forEach(x -> classes.add(x.substring(0, x.lastIndexOf('.'))));
          if (classes.size() > 1) {
            shared.add(t + ", held by " + fields);
          }
        });
    assertTrue(
        shared.isEmpty(),
        "handlers share a mutable type (give it one owner, the others a read-only view or a"
            + " message): "
            + shared);
  }

  /** The component {@code c} belongs to: its package's first three names (dev.portcullis.pdp). */
  private static String component(JavaClass c) {
    String[] p = c.getPackageName().split("\\.");
    return String.join(".", java.util.Arrays.copyOf(p, Math.min(3, p.length)));
  }

  /**
   * pdp-server's root package holds the server and what composes it, at most twelve classes
   * (docs/architecture.md, "pdp-server's rooms"): a connection's handlers, decisions, tunnels,
   * enrolment and the fleet have packages of their own, below it. It had grown to 34.
   */
  @Test
  void thePdpsRootPackageHoldsTheServerOnly() {
    List<String> root = new ArrayList<>();
    for (JavaClass c : PRODUCT) {
      if (c.getPackageName().equals("dev.portcullis.pdp")
          && c.isTopLevelClass()
          && !c.getSimpleName().equals("package-info")) {
        root.add(c.getSimpleName());
      }
    }
    java.util.Collections.sort(root);
    assertTrue(
        root.size() <= 12,
        root.size() + " classes in dev.portcullis.pdp, at most 12 (give the rest a room): " + root);
  }

  /** A field that is not final, or a final one holding a collection, a map or an array. */
  private static boolean mutable(JavaClass t) {
    for (JavaField f : t.getAllFields()) {
      if (f.getModifiers().contains(JavaModifier.STATIC)) {
        continue;
      }
      JavaClass ft = f.getRawType();
      if (!f.getModifiers().contains(JavaModifier.FINAL)
          || ft.isArray()
          || ft.isAssignableTo(java.util.Collection.class)
          || ft.isAssignableTo(Map.class)
          || ft.getPackageName().equals("io.netty.util.collection")) {
        return true;
      }
    }
    return false;
  }
}
