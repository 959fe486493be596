package dev.portcullis.pdp.tunnel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.cops.access.TunnelRequest.Objective;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.pki.DevCertificates;
import dev.portcullis.support.pki.TunnelCertificates;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tunnel policy read with its mistakes named, and the authority's decisions on it. */
class TunnelAuthorityTest {
  static final String POLICY =
      """
      <tunnels>
        <gateway name="gw-1" address="192.0.2.2" ike-id="gw-1.lab" network="10.2.0.0/16"/>
        <allow id="ops" subject="alice bob-*" gateway="gw-1" objectives="confidentiality"
               lifetime="1h" inner="10.1.0.0/16" ike-id="{subject}.{tag}@vpn.lab" credential="none"
               keying="psk"/>
        <allow id="sensors" subject="sensor-?" gateway="gw-1" objectives="integrity confidentiality"
               lifetime="10m" inner="10.1.0.0/16" ike-id="{subject}.{tag}@vpn.lab" credential="none"/>
      </tunnels>
      """;

  @TempDir Path dir;

  /** An authority on {@code text}, by the system clock. */
  TunnelAuthority authority(String text) throws Exception {
    return new TunnelAuthority(policy(text), Clock.systemUTC(), new SecureRandom());
  }

  TunnelPolicy policy(String text) throws Exception {
    Path f = dir.resolve("tunnels.xml");
    Files.writeString(f, text);
    return TunnelPolicy.load(f);
  }

  /** Each subject its own inner address, as an operator would give them. */
  static final java.util.Map<String, String> INNER = new java.util.concurrent.ConcurrentHashMap<>();

  static final java.util.concurrent.atomic.AtomicInteger TAGS =
      new java.util.concurrent.atomic.AtomicInteger();

  static TunnelRequest ask(String subject, Objective o) throws Exception {
    String inner = INNER.computeIfAbsent(subject, s -> "10.1.0." + (INNER.size() + 1) + "/32");
    return ask(subject, inner, subject + "." + TAGS.incrementAndGet() + "@vpn.lab", null, o);
  }

  static TunnelRequest ask(String subject, String inner, String ikeId, String cred, Objective o)
      throws Exception {
    return TunnelRequest.client(
            subject,
            "gw-1",
            InetAddress.getByName("192.0.2.1"),
            TrafficSelector.parse(inner),
            o,
            ikeId,
            cred)
        .withPublicKeys(List.of(KEY));
  }

  /** RFC 8032's first test key as a SubjectPublicKeyInfo: a client's one-time public key. */
  static final Bytes KEY =
      Bytes.ofHex(
          "302a300506032b6570032100"
              + "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");

  /** RFC 8032's second: a gateway's. */
  static final Bytes GATEWAY_KEY =
      Bytes.ofHex(
          "302a300506032b6570032100"
              + "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");

  /** The development CA as the authority that certifies tunnels' keys. */
  TunnelAuthority.Issuer issuer() throws Exception {
    DevCertificates.Pki pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of());
    X509Certificate ca = DevCertificates.certificateFile(pki.caCertificate());
    PrivateKey key = DevCertificates.privateKeyFile(dir.resolve("pki/ca.key"));
    return new TunnelAuthority.Issuer() {
      @Override
      public byte[] authority() {
        try {
          return ca.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public byte[] issue(
          byte[] publicKey, String owner, String tunnelId, String ikeId, Instant now, Duration v)
          throws java.security.GeneralSecurityException {
        return TunnelCertificates.issue(ca, key, publicKey, owner, tunnelId, ikeId, now, v);
      }
    };
  }

  /**
   * Keyed by certificates (the default): granted unkeyed with the request's public key; certified,
   * each end's grant carries its own certificate (for its key, its identity, this tunnel, until the
   * tunnel's end), the peer's, and the authority's, and no pre-shared key.
   */
  @Test
  void aCertificateRuleCertifiesBothEndsKeysForThisTunnelAlone() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-28T10:00:00Z"));
    TunnelAuthority a = new TunnelAuthority(policy(POLICY), clock(now), new SecureRandom());
    TunnelAuthority.Outcome o = a.decide(ask("sensor-1", Objective.INTEGRITY));
    assertTrue(o.granted(), o.reason());
    assertTrue(o.needsCertificates());
    assertFalse(o.client().complete(), "not keyed until certified");
    now.set(now.get().plusSeconds(4)); // it waited for the gateway's key
    TunnelAuthority.Outcome c = a.certify(o, GATEWAY_KEY, issuer());
    assertFalse(c.needsCertificates());
    TunnelGrant client = c.client();
    TunnelGrant gateway = c.gateway();
    assertTrue(client.complete() && gateway.complete());
    assertTrue(client.certified());
    assertEquals(null, client.psk(), "no shared secret");
    CertificateFactory f = CertificateFactory.getInstance("X.509");
    X509Certificate own = cert(f, client.certificate());
    X509Certificate peer = cert(f, client.peerCertificate());
    assertEquals(KEY, Bytes.of(own.getPublicKey().getEncoded()), "the request's key");
    assertEquals(GATEWAY_KEY, Bytes.of(peer.getPublicKey().getEncoded()), "the gateway's");
    assertEquals(
        "CN=sensor-1,OU=" + client.tunnelId() + ",O=Portcullis tunnel",
        own.getSubjectX500Principal().getName());
    assertEquals(
        List.of(List.of(1, client.localId())), List.copyOf(own.getSubjectAlternativeNames()));
    assertEquals(List.of(List.of(2, "gw-1.lab")), List.copyOf(peer.getSubjectAlternativeNames()));
    assertEquals(
        a.find(client.tunnelId()).until(),
        own.getNotAfter().toInstant(),
        "valid until the tunnel's end of life, not a moment longer");
    assertEquals(client.certificate(), gateway.peerCertificate(), "the gateway trusts it alone");
    assertEquals(client.peerCertificate(), gateway.certificate());
    own.verify(cert(f, client.authority()).getPublicKey());
    a.ended(client.tunnelId());
    assertThrows(
        java.security.GeneralSecurityException.class,
        () -> a.certify(o, GATEWAY_KEY, issuer()),
        "an ended tunnel is certified no more");
  }

  @Test
  void aCertificateRuleRefusesARequestWithoutAKeyOrWithOneCharonCannotSignWith() throws Exception {
    TunnelAuthority a = authority(POLICY);
    TunnelRequest none = ask("sensor-2", Objective.INTEGRITY).withPublicKeys(List.of());
    assertTrue(
        a.decide(none).reason().contains("the request carries no public key"),
        a.decide(none).reason());
    TunnelRequest bad =
        ask("sensor-2", Objective.INTEGRITY).withPublicKeys(List.of(Bytes.ofHex("3003020101")));
    assertTrue(
        a.decide(bad).reason().startsWith("the request's public key: "), a.decide(bad).reason());
    assertTrue(a.granted().isEmpty());
  }

  static X509Certificate cert(CertificateFactory f, Bytes der) throws Exception {
    return (X509Certificate) f.generateCertificate(new java.io.ByteArrayInputStream(der.toArray()));
  }

  @Test
  void aGrantCarriesOnlyWhatThePolicyGivesTheSubject() throws Exception {
    TunnelAuthority a =
        authority(
            POLICY.replace(
                "<allow id=\"ops\"",
                "<subject name=\"alice\" inner=\"10.1.7.1/32\" ike-id=\"alice@corp\"/>\n"
                    + "<allow id=\"ops\""));
    Objective c = Objective.CONFIDENTIALITY;
    String all = a.decide(ask("alice", "0.0.0.0/0", "alice@corp", null, c)).reason();
    assertTrue(all.contains("not within 10.1.7.1/32") && all.contains("never for more"), all);
    String other = a.decide(ask("alice", "10.1.7.2/32", "alice@corp", null, c)).reason();
    assertTrue(other.contains("not within 10.1.7.1/32"), other);
    String ike = a.decide(ask("alice", "10.1.7.1/32", "bob-1.1@vpn.lab", null, c)).reason();
    assertEquals(
        "IKE identity bob-1.1@vpn.lab: the tunnel policy gives alice the IKE identity alice@corp",
        ike);
    String untagged = a.decide(ask("bob-1", "10.1.9.0/24", "bob-1@vpn.lab", null, c)).reason();
    assertTrue(untagged.contains("gives bob-1 the IKE identity bob-1.{tag}@vpn.lab"), untagged);
    String notANumber = a.decide(ask("bob-1", "10.1.9.0/24", "bob-1.x@vpn.lab", null, c)).reason();
    assertTrue(notANumber.contains("the IKE identity bob-1.{tag}@vpn.lab"), notANumber);
    TunnelAuthority.Outcome bob = a.decide(ask("bob-1", "10.1.9.0/24", "bob-1.1@vpn.lab", null, c));
    assertTrue(bob.granted(), bob.reason());
    assertEquals("10.1.9.0/24", bob.client().localTs().toString());
    assertEquals("bob-1.1@vpn.lab", bob.gateway().remoteId());
    String same = a.decide(ask("bob-1", "10.1.9.0/24", "bob-1.1@vpn.lab", null, c)).reason();
    assertTrue(same.contains("is held by tunnel " + bob.client().tunnelId()), same);
    assertTrue(a.decide(ask("bob-1", "10.1.9.0/24", "bob-1.2@vpn.lab", null, c)).granted());
    String wide = a.decide(ask("bob-2", "10.0.0.0/8", "bob-2.1@vpn.lab", null, c)).reason();
    assertTrue(wide.contains("not within 10.1.0.0/16"), wide);
    String taken = a.decide(ask("bob-2", "10.1.9.7/32", "bob-2.1@vpn.lab", null, c)).reason();
    assertTrue(taken.contains("another subject's tunnel to gw-1 carries"), taken);
    TunnelAuthority.Outcome alice = a.decide(ask("alice", "10.1.7.1/32", "alice@corp", null, c));
    assertTrue(alice.granted(), alice.reason());
    assertEquals("alice@corp", alice.client().localId());
    assertEquals("alice@corp", alice.gateway().remoteId(), "the gateway admits that identity only");
    assertEquals("10.1.7.1/32", alice.gateway().remoteTs().toString());
    assertEquals(3, a.granted().size());
  }

  @Test
  void aRuleTakesAFreshCredentialPerTunnelUnlessItSaysNone() throws Exception {
    TunnelAuthority a = authority(POLICY.replace(" credential=\"none\"", ""));
    String none = a.decide(ask("alice", Objective.CONFIDENTIALITY)).reason();
    assertTrue(none.contains("fresh one-time credential") && none.contains("names none"), none);
    assertTrue(
        a.decide(
                ask(
                    "alice",
                    "10.1.0.1/32",
                    "alice.1@vpn.lab",
                    "otc-0123456789abcdef",
                    Objective.CONFIDENTIALITY))
            .granted(),
        "the credential itself is the desk's to check");
  }

  @Test
  void aRuleWithoutAnInnerPrefixGrantsNone() throws Exception {
    TunnelAuthority a = authority(POLICY.replace(" inner=\"10.1.0.0/16\"", ""));
    assertEquals(
        "the tunnel policy gives alice no inner prefix (rule ops has no inner=, and no <subject>"
            + " names alice)",
        a.decide(ask("alice", Objective.CONFIDENTIALITY)).reason());
  }

  /** The ops rule handing out addresses from 10.8.0.0/29 instead of taking the client's. */
  static final String POOLED = POLICY.replaceFirst("inner=\"10.1.0.0/16\"", "pool=\"10.8.0.0/29\"");

  static TunnelRequest pooled(String subject) throws Exception {
    return TunnelRequest.client(
            subject,
            "gw-1",
            InetAddress.getByName("192.0.2.1"),
            null,
            Objective.CONFIDENTIALITY,
            subject + "." + TAGS.incrementAndGet() + "@vpn.lab",
            null)
        .withPublicKeys(List.of(KEY));
  }

  @Test
  void aPoolsTunnelsGetTheLowestFreeAddressEachHandedOutByTheGateway() throws Exception {
    TunnelAuthority a = authority(POOLED);
    TunnelAuthority.Outcome o = a.decide(pooled("alice"));
    assertTrue(o.granted(), o.reason());
    // a /29 of more than two addresses: not its first (10.8.0.0) nor its last (10.8.0.7)
    assertEquals("10.8.0.1/32", o.client().localTs().toString());
    assertEquals(TunnelGrant.VirtualIp.RECEIVED, o.client().virtualIp());
    assertEquals(TunnelGrant.VirtualIp.HANDED_OUT, o.gateway().virtualIp());
    assertEquals("10.8.0.1/32", o.gateway().remoteTs().toString());
    assertTrue(a.granted().get(0).pooled());
    List<String> given = new java.util.ArrayList<>(List.of("10.8.0.1/32"));
    for (int i = 0; i < 5; i++) {
      TunnelAuthority.Outcome next = a.decide(pooled(i % 2 == 0 ? "alice" : "bob-1"));
      assertTrue(next.granted(), next.reason());
      given.add(next.client().localTs().toString());
    }
    assertEquals(
        List.of(
            "10.8.0.1/32",
            "10.8.0.2/32",
            "10.8.0.3/32",
            "10.8.0.4/32",
            "10.8.0.5/32",
            "10.8.0.6/32"),
        given,
        "one address each, never one twice");
    TunnelAuthority.Outcome full = a.decide(pooled("bob-2"));
    assertEquals(
        "rule ops's pool 10.8.0.0/29 has no address left that no tunnel to gw-1 carries (6 live)",
        full.reason());
    String third =
        a.granted().stream()
            .filter(g -> g.inner().toString().equals("10.8.0.3/32"))
            .findFirst()
            .orElseThrow()
            .id();
    a.ended(third);
    assertEquals(
        "10.8.0.3/32",
        a.decide(pooled("bob-2")).client().localTs().toString(),
        "an ended tunnel's address is given again");
  }

  @Test
  void aPoolsRequestNamesNoInnerPrefixAndOtherRulesRequestsDo() throws Exception {
    TunnelAuthority a = authority(POOLED);
    assertEquals(
        "inner prefix 10.1.0.1/32: rule ops gives each tunnel's client one address of its pool"
            + " 10.8.0.0/29, handed out by the gateway: a request names none",
        a.decide(ask("alice", "10.1.0.1/32", "alice.1@vpn.lab", null, Objective.CONFIDENTIALITY))
            .reason());
    assertEquals(
        "the request names no inner prefix, and rule sensors hands out no addresses (no pool=):"
            + " ask for 10.1.0.0/16 or a part of it",
        a.decide(pooled("sensor-1")).reason());
    // the address a pool gives is never one another subject's tunnel carries
    TunnelAuthority.Outcome s =
        a.decide(ask("sensor-1", "10.8.0.0/30", "sensor-1.1@vpn.lab", null, Objective.INTEGRITY));
    assertFalse(s.granted(), "10.8/30 is not within the sensors' 10.1/16");
    TunnelAuthority wide =
        authority(
            POOLED.replace(
                "lifetime=\"10m\" inner=\"10.1.0.0/16\"",
                "lifetime=\"10m\" inner=\"10.8.0.0/16\""));
    assertTrue(
        wide.decide(ask("sensor-1", "10.8.0.0/30", "sensor-1.1@vpn.lab", null, Objective.INTEGRITY))
            .granted());
    assertEquals(
        "10.8.0.4/32",
        wide.decide(pooled("alice")).client().localTs().toString(),
        "past the sensor's 10.8.0.0/30");
  }

  @Test
  void aReloadEndsPooledTunnelsWhoseAddressIsNoLongerInTheirRulesPool() throws Exception {
    TunnelAuthority a = authority(POOLED);
    String first = a.decide(pooled("alice")).client().tunnelId();
    String second = a.decide(pooled("alice")).client().tunnelId(); // 10.8.0.2
    assertEquals(List.of(), a.reload(policy(POOLED)), "the same policy ends nothing");
    List<TunnelAuthority.Granted> gone =
        a.reload(policy(POOLED.replace("10.8.0.0/29", "10.8.0.0/31")));
    assertEquals(List.of(second), gone.stream().map(TunnelAuthority.Granted::id).toList());
    gone = a.reload(policy(POLICY));
    assertEquals(
        List.of(first),
        gone.stream().map(TunnelAuthority.Granted::id).toList(),
        "a rule that now takes the client's prefix: the address handed out goes");
  }

  @Test
  void aReloadThatNarrowsTheSubjectsTermsEndsItsTunnels() throws Exception {
    TunnelAuthority a = authority(POLICY);
    Objective c = Objective.CONFIDENTIALITY;
    String alice =
        a.decide(ask("alice", "10.1.3.0/24", "alice.1@vpn.lab", null, c)).client().tunnelId();
    String bob =
        a.decide(ask("bob-1", "10.1.4.1/32", "bob-1.1@vpn.lab", null, c)).client().tunnelId();
    List<TunnelAuthority.Granted> gone =
        a.reload(
            policy(
                POLICY.replace(
                    "<allow id=\"ops\"",
                    "<subject name=\"alice\" inner=\"10.1.3.1/32\"/>\n"
                        + "<subject name=\"bob-1\" ike-id=\"bob@corp\"/>\n<allow id=\"ops\"")));
    assertEquals(
        java.util.Set.of(alice, bob),
        gone.stream()
            .map(TunnelAuthority.Granted::id)
            .collect(java.util.stream.Collectors.toSet()));
  }

  @Test
  void aGrantedTunnelHasAFreshIdAndKeyAndMirroredEnds() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-25T10:00:00Z"));
    TunnelAuthority a = new TunnelAuthority(policy(POLICY), clock(now), new SecureRandom());
    TunnelAuthority.Outcome o = a.decide(ask("alice", Objective.CONFIDENTIALITY));
    assertTrue(o.granted(), o.reason());
    TunnelGrant c = o.client();
    TunnelGrant g = o.gateway();
    assertTrue(c.complete() && g.complete());
    assertTrue(c.tunnelId().matches("t-[0-9a-f]{16}"), c.tunnelId());
    assertEquals("192.0.2.2", c.remoteAddress().getHostAddress());
    assertEquals("gw-1.lab", c.remoteId());
    assertEquals("10.2.0.0/16", c.remoteTs().toString());
    assertEquals(3600L, c.lifetimeSeconds());
    assertTrue(g.remoteId().matches("alice\\.[0-9]+@vpn\\.lab"), "the mirror: " + g.remoteId());
    assertEquals(c.localId(), g.remoteId());
    assertArrayEquals(c.psk(), g.psk(), "one key for both ends");
    assertEquals(32, c.psk().length);
    TunnelAuthority.Outcome again = a.decide(ask("alice", Objective.CONFIDENTIALITY));
    assertNotEquals(c.tunnelId(), again.client().tunnelId());
    assertFalse(java.util.Arrays.equals(c.psk(), again.client().psk()), "a key per tunnel");
    assertFalse(a.describe().contains(java.util.HexFormat.of().formatHex(c.psk())));
    assertEquals(2, a.granted().size());
  }

  @Test
  void refusalsSayWhy() throws Exception {
    TunnelAuthority a = authority(POLICY);
    assertEquals(
        "no rule allows mallory a tunnel to gw-1",
        a.decide(ask("mallory", Objective.CONFIDENTIALITY)).reason());
    assertTrue(
        a.decide(ask("alice", Objective.INTEGRITY)).reason().contains("rule ops allows"),
        "alice's rule is for confidentiality only");
    assertTrue(a.decide(ask("sensor-7", Objective.INTEGRITY)).granted());
    assertTrue(
        a.decide(ask("alice", Objective.AH_AND_ESP)).reason().contains("one IPsec protocol"));
    assertTrue(a.decide(ask("alice", Objective.NONE)).reason().contains("no tunnel"));
    TunnelRequest elsewhere =
        TunnelRequest.client(
            "alice",
            "gw-9",
            InetAddress.getByName("192.0.2.1"),
            TrafficSelector.parse("10.1.0.1/32"),
            Objective.CONFIDENTIALITY,
            "a",
            null);
    assertEquals("no gateway gw-9", a.decide(elsewhere).reason());
  }

  @Test
  void revocationsNameTheTunnelsToRemove() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-25T10:00:00Z"));
    TunnelAuthority a = new TunnelAuthority(policy(POLICY), clock(now), new SecureRandom());
    String alice = a.decide(ask("alice", Objective.CONFIDENTIALITY)).client().tunnelId();
    String bob = a.decide(ask("bob-2", Objective.CONFIDENTIALITY)).client().tunnelId();
    String sensor = a.decide(ask("sensor-1", Objective.INTEGRITY)).client().tunnelId();
    now.set(now.get().plus(Duration.ofMinutes(11)));
    assertEquals(List.of(sensor), a.expired().stream().map(TunnelAuthority.Granted::id).toList());
    assertEquals(List.of(alice), a.revokeSubject("alice").stream().map(g -> g.id()).toList());
    // bob's rule goes: his tunnel with it
    List<TunnelAuthority.Granted> gone = a.reload(policy(POLICY.replace("alice bob-*", "alice")));
    assertEquals(List.of(bob), gone.stream().map(g -> g.id()).toList());
    assertEquals(List.of(), a.granted());
  }

  @Test
  void mistakesNameTheirLine() {
    String[][] cases = {
      {
        POLICY.replace(
            "gateway=\"gw-1\" objectives=\"confidentiality\"",
            "gateway=\"gw-2\" objectives=\"confidentiality\""),
        "no gateway gw-2 is defined"
      },
      {
        POLICY.replace("objectives=\"confidentiality\"", "objectives=\"ah+esp\""),
        "objective ah+esp"
      },
      {POLICY.replace("lifetime=\"1h\"", "lifetime=\"48h\""), "at most 24h"},
      {
        POLICY.replace("address=\"192.0.2.2\"", "address=\"gw.example\""),
        "a literal IPv4 or IPv6 address"
      },
      {POLICY.replace("network=\"10.2.0.0/16\"", "network=\"10.2.0.1/16\""), "host bits set"},
      {POLICY.replace("id=\"sensors\"", "id=\"ops\""), "rule id ops used twice"},
      {POLICY.replace("inner=\"10.1.0.0/16\"", "inner=\"10.1.0.1/16\""), "host bits set"},
      {POLICY.replace("{subject}.{tag}", "{subject}{tag}"), "put a separator between them"},
      {
        POLICY.replaceFirst("inner=\"10.1.0.0/16\"", "inner=\"10.1.0.0/16\" pool=\"10.8.0.0/24\""),
        "inner= and pool= both"
      },
      {
        POLICY.replaceFirst("inner=\"10.1.0.0/16\"", "pool=\"10.2.3.0/24\""),
        "pool 10.2.3.0/24 overlaps gateway gw-1's network 10.2.0.0/16"
      },
      {POLICY.replaceFirst("inner=\"10.1.0.0/16\"", "pool=\"10.8.0.1/24\""), "host bits set"},
      {
        POLICY.replaceFirst("inner=\"10.1.0.0/16\"", "pool=\"192.0.2.0/24\""),
        "pool 192.0.2.0/24 holds gateway gw-1's own address 192.0.2.2"
      },
      {POLICY.replace("credential=\"none\"", "credential=\"maybe\""), "credential"},
      {
        POLICY.replace(
            "<allow id=\"ops\"", "<subject name=\"a\"/><subject name=\"a\"/><allow id=\"ops\""),
        "subject a defined twice"
      },
    };
    for (String[] c : cases) {
      ConfigException e = assertThrows(ConfigException.class, () -> policy(c[0]), c[1]);
      assertTrue(e.getMessage().contains(c[1]), e.getMessage());
      assertTrue(e.line() > 1, e.getMessage());
    }
  }

  static Clock clock(AtomicReference<Instant> now) {
    return new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now.get();
      }
    };
  }

  /** Sessions as a map of subject to rank, over the levels U 0, C 1, S 2. */
  static TunnelAuthority.Sessions sessions(java.util.Map<String, Integer> ranks) {
    return new TunnelAuthority.Sessions() {
      @Override
      public Integer rank(String subject) {
        return ranks.get(subject);
      }

      @Override
      public Integer levelRank(String name) {
        return java.util.Map.of("U", 0, "C", 1, "S", 2).get(name);
      }
    };
  }

  @Test
  void aRuleMayRequireAMultilevelSessionAndConfidentialityFromALevel() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-25T10:00:00Z"));
    TunnelAuthority a =
        new TunnelAuthority(
            policy(
                POLICY.replace(
                    "<allow id=\"ops\"",
                    "<allow id=\"mls\" subject=\"carol\" gateway=\"gw-1\""
                        + " objectives=\"integrity confidentiality\" lifetime=\"1h\""
                        + " mls-session=\"true\" confidential-from=\"S\" inner=\"10.1.0.0/16\""
                        + " ike-id=\"{subject}.{tag}@vpn.lab\" credential=\"none\"/>\n<allow id=\"ops\"")),
            clock(now),
            new SecureRandom());
    java.util.Map<String, Integer> ranks = new java.util.HashMap<>();
    assertTrue(
        a.decide(ask("carol", Objective.INTEGRITY), sessions(ranks)).reason().contains("has none"));
    assertTrue(a.decide(ask("carol", Objective.INTEGRITY)).reason().contains("serves no MLS"));
    ranks.put("carol", 1); // logged in at C: integrity will do
    TunnelAuthority.Outcome atC = a.decide(ask("carol", Objective.INTEGRITY), sessions(ranks));
    assertTrue(atC.granted(), atC.reason());
    ranks.put("carol", 2); // at S: confidentiality only
    assertTrue(
        a.decide(ask("carol", Objective.INTEGRITY), sessions(ranks))
            .reason()
            .contains("grants confidentiality only"));
    assertTrue(a.decide(ask("carol", Objective.CONFIDENTIALITY), sessions(ranks)).granted());
    // The session moved to S: the integrity tunnel goes, the confidential one stays.
    List<TunnelAuthority.Granted> gone = a.review(sessions(ranks));
    assertEquals(
        List.of(atC.client().tunnelId()), gone.stream().map(TunnelAuthority.Granted::id).toList());
    ranks.remove("carol"); // LOGOUT: every tunnel resting on the session goes
    assertEquals(1, a.review(sessions(ranks)).size());
    assertEquals(List.of(), a.granted());
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                policy(
                    POLICY.replace(
                        "lifetime=\"10m\"", "lifetime=\"10m\" confidential-from=\"S\"")));
    assertTrue(e.getMessage().contains("needs mls-session"), e.getMessage());
  }

  @Test
  void aSubjectHoldsAtMostTheRulesMaxTunnelsAtOnce() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-25T10:00:00Z"));
    TunnelAuthority a =
        new TunnelAuthority(
            policy(POLICY.replace("lifetime=\"1h\"", "lifetime=\"1h\" max-tunnels=\"2\"")),
            clock(now),
            new SecureRandom());
    String first = a.decide(ask("alice", Objective.CONFIDENTIALITY)).client().tunnelId();
    assertTrue(a.decide(ask("alice", Objective.CONFIDENTIALITY)).granted());
    String third = a.decide(ask("alice", Objective.CONFIDENTIALITY)).reason();
    assertTrue(third.contains("at most 2 at once"), third);
    assertTrue(a.decide(ask("bob-1", Objective.CONFIDENTIALITY)).granted(), "per subject");
    a.ended(first);
    assertTrue(a.decide(ask("alice", Objective.CONFIDENTIALITY)).granted(), "one ended: room");
  }
}
