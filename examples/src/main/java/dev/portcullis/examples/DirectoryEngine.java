package dev.portcullis.examples;

import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CompletionStage;

/**
 * An asynchronous policy engine: it asks another system, a directory service over HTTP, which
 * groups the subject belongs to, and grants members of one group. The request goes out with the
 * JDK's {@link HttpClient#sendAsync}; the PDP's event loop is not held while the directory thinks,
 * and the PDP sends the decision when the answer arrives, or "Unable to process" if it does not
 * arrive within the client type's {@code decision-timeout}.
 *
 * <p>Policy file (properties): {@code directory=http://host:port/groups} (asked {@code
 * ?name=SUBJECT}; the answer is the subject's groups, comma-separated; 404 for someone unknown) and
 * {@code group=staff}. {@code pdp.xml} names it {@code engine="directory"}. The subject goes in a
 * query parameter, encoded, never into the path: a subject named {@code ..} must not walk the
 * directory's URL space.
 */
public final class DirectoryEngine implements AsyncPolicyEngine {
  private final HttpClient http;
  private final URI directory;
  private final String group;

  DirectoryEngine(HttpClient http, URI directory, String group) {
    this.http = http;
    this.directory = directory;
    this.group = group;
  }

  @Override
  public CompletionStage<PolicyDecision> decideAsync(PolicyRequest request) {
    String subject = request.access().subject();
    HttpRequest lookup =
        HttpRequest.newBuilder(
                URI.create(
                    directory + "?name=" + URLEncoder.encode(subject, StandardCharsets.UTF_8)))
            .timeout(Duration.ofSeconds(10))
            .build();
    // Completes on the HTTP client's threads; the PDP hands the decision to the event loop.
    return http.sendAsync(lookup, HttpResponse.BodyHandlers.ofString())
        .thenApply(
            r -> {
              if (r.statusCode() == 404) {
                return PolicyDecision.deny("directory", subject + " is not in the directory");
              }
              if (r.statusCode() != 200) {
                // A failed stage: the PDP answers "Unable to process" and logs this message.
                throw new IllegalStateException("directory answered HTTP " + r.statusCode());
              }
              boolean member =
                  Arrays.stream(r.body().split(",")).map(String::strip).anyMatch(group::equals);
              return member
                  ? PolicyDecision.grant("directory", "member of " + group)
                  : PolicyDecision.deny("directory", "not a member of " + group);
            });
  }

  @Override
  public String describe() {
    return "members of " + group + " at " + directory;
  }

  /** Loads directory policies: {@code engine="directory"}. */
  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "directory";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      Properties p = new Properties();
      try (Reader in = Files.newBufferedReader(policyFile)) {
        p.load(in);
      } catch (IOException | IllegalArgumentException e) {
        throw new ConfigException(policyFile.toString(), "unreadable: " + e.getMessage(), e);
      }
      String url = p.getProperty("directory");
      String group = p.getProperty("group");
      if (url == null || group == null) {
        throw new ConfigException(
            policyFile.toString(), "expected the properties directory=URL and group=NAME", null);
      }
      URI directory;
      try {
        directory = URI.create(url);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(policyFile.toString(), "directory: " + e.getMessage(), null);
      }
      if (!"http".equals(directory.getScheme()) && !"https".equals(directory.getScheme())
          || directory.getRawQuery() != null) {
        throw new ConfigException(
            policyFile.toString(),
            "directory: " + url + " (expected an http or https URL without a query)",
            null);
      }
      // One client for the engine's life: its connection pool is shared by every decision.
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      return new DirectoryEngine(http, directory, group.strip());
    }
  }
}
