package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.cops.access.TunnelRequest.Objective;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.support.pki.TunnelCertificates;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The PDP's decisions on tunnels (the dynamic VPN tunnels paper's authorization and key steps): a
 * client agent's request is decided by the {@link TunnelPolicy}; a granted tunnel gets a fresh id
 * and a fresh 256-bit pre-shared key from {@link SecureRandom}, and two grants, one for each end
 * (the client's, and the gateway's mirror). The key lives only in those two grants: the caller
 * sends each to its agent (over TLS) and zeroes it. The authority remembers which tunnels it
 * granted — to whom, to which gateway, until when — but no key, so that a revocation (the
 * subject's, the gateway's, the lifetime's end) can name what to remove. Its decisions are made on
 * one thread (the tunnel desk's), so that what a decision checks against the tunnels granted (an
 * identity held, a prefix overlapped, the address a pool gives) is not changed under it; what was
 * granted may be read from any thread.
 */
public final class TunnelAuthority {
  /**
   * A decision: granted, with both ends' grants, or refused with the reason. A tunnel keyed by
   * certificates is granted unkeyed, with the client's public key ({@code clientKey}); {@link
   * #certify} keys it once the gateway has a one-time key ready.
   */
  public record Outcome(
      String rule, String reason, TunnelGrant client, TunnelGrant gateway, Bytes clientKey) {
    public boolean granted() {
      return client != null;
    }

    /** Whether the grants still wait for their certificates. */
    public boolean needsCertificates() {
      return clientKey != null && !client.certified();
    }
  }

  /**
   * The authority that certifies tunnels' one-time keys (the PDP's enrolment CA): its certificate,
   * and certificates it issues for one end of one tunnel. Its key stays with it.
   */
  public interface Issuer {
    /** The authority's certificate (DER). */
    byte[] authority();

    /** A certificate (DER) for {@code publicKey}, one end of tunnel {@code tunnelId}. */
    byte[] issue(
        byte[] publicKey,
        String owner,
        String tunnelId,
        String ikeId,
        Instant now,
        java.time.Duration valid)
        throws java.security.GeneralSecurityException;
  }

  /**
   * A tunnel this authority granted (no key): {@code inner} is the prefix its client may send from,
   * {@code ikeId} the client's IKE identity, both as the policy gave them; {@code pooled} whether
   * {@code inner} is an address of its rule's pool, which the gateway hands out.
   */
  public record Granted(
      String id,
      String subject,
      String gateway,
      Objective objective,
      String rule,
      Instant until,
      TrafficSelector inner,
      String ikeId,
      boolean pooled) {}

  /**
   * The multilevel sessions a rule may require ({@code mls-session}, {@code confidential-from}):
   * the PDP's MLS engine.
   */
  public interface Sessions {
    /** The rank of {@code subject}'s session level, or null when it holds none (or unknown). */
    Integer rank(String subject);

    /** The rank of level {@code name}, or null if the MLS policy has no such level. */
    Integer levelRank(String name);

    /** The sessions of {@code engine}, or null for none (a PDP without an MLS client type). */
    static Sessions of(dev.portcullis.pdp.policy.mls.MlsEngine engine) {
      return engine == null
          ? null
          : new Sessions() {
            @Override
            public Integer rank(String subject) {
              return engine.sessionRank(subject);
            }

            @Override
            public Integer levelRank(String name) {
              return engine.rank(name);
            }
          };
    }
  }

  private static final HexFormat HEX = HexFormat.of();

  private volatile TunnelPolicy policy;
  private final Clock clock;
  private final SecureRandom random;
  private final Map<String, Granted> granted = new ConcurrentHashMap<>();

  public TunnelAuthority(TunnelPolicy policy, Clock clock, SecureRandom random) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** Decides a client agent's request, with no multilevel sessions to consult. */
  public Outcome decide(TunnelRequest r) {
    return decide(r, null);
  }

  /**
   * Decides a client agent's request; {@code sessions} (null: none) for the rules that require a
   * multilevel session.
   */
  public Outcome decide(TunnelRequest r, Sessions sessions) {
    if (r.role() != TunnelRequest.Role.CLIENT) {
      return refused(null, "a gateway's standing request asks for no tunnel of its own");
    }
    TunnelPolicy p = policy;
    TunnelPolicy.Gateway gw = p.gateway(r.gateway());
    if (gw == null) {
      return refused(null, "no gateway " + r.gateway());
    }
    if (r.objective() == Objective.NONE) {
      return refused(null, "protection objective none: no tunnel is made");
    }
    if (r.objective() == Objective.AH_AND_ESP) {
      return refused(
          null,
          "protection objective ah+esp: strongSwan negotiates one IPsec protocol per CHILD_SA;"
              + " ask for confidentiality");
    }
    TunnelPolicy.Allow rule = p.rule(r.subject(), gw.name());
    if (rule == null) {
      return refused(null, "no rule allows " + r.subject() + " a tunnel to " + gw.name());
    }
    if (!rule.objectives().contains(r.objective())) {
      return refused(
          rule.id(),
          "rule " + rule.id() + " allows " + rule.objectives() + ", not " + r.objective());
    }
    long held = granted.values().stream().filter(g -> g.subject().equals(r.subject())).count();
    if (held >= rule.maxTunnels()) {
      return refused(
          rule.id(),
          r.subject()
              + " holds "
              + held
              + " tunnels: rule "
              + rule.id()
              + " allows at most "
              + rule.maxTunnels()
              + " at once (max-tunnels)");
    }
    String session = sessionRefusal(rule, r.subject(), r.objective(), sessions);
    if (session != null) {
      return refused(rule.id(), session);
    }
    // What is granted comes from the policy; the request may ask for less, never for more.
    TunnelPolicy.Terms terms = p.terms(rule, r.subject());
    String beyond = beyondTerms(rule, terms, r, gw.name());
    if (beyond != null) {
      return refused(rule.id(), beyond);
    }
    TrafficSelector inner = r.innerPrefix();
    if (rule.pool() != null) {
      List<TrafficSelector> taken = new ArrayList<>();
      for (Granted g : granted.values()) {
        if (g.gateway().equals(gw.name())) {
          taken.add(g.inner());
        }
      }
      inner = AddressPool.pick(rule.pool(), taken);
      if (inner == null) {
        return refused(
            rule.id(),
            "rule "
                + rule.id()
                + "'s pool "
                + rule.pool()
                + " has no address left that no tunnel to "
                + gw.name()
                + " carries ("
                + taken.size()
                + " live)");
      }
    }
    Bytes clientKey = null;
    if (rule.certificates()) {
      if (r.publicKeys().isEmpty()) {
        return refused(
            rule.id(),
            "rule "
                + rule.id()
                + " keys tunnels by one-time key pairs (keying=\"certificates\"): the request"
                + " carries no public key");
      }
      clientKey = r.publicKeys().get(0);
      try {
        TunnelCertificates.keyType(clientKey.toArray());
      } catch (java.security.GeneralSecurityException e) {
        return refused(rule.id(), "the request's public key: " + e.getMessage());
      }
    }
    byte[] id = new byte[8];
    byte[] psk = rule.certificates() ? null : new byte[32];
    random.nextBytes(id);
    if (psk != null) {
      random.nextBytes(psk);
    }
    String tunnel = "t-" + HEX.formatHex(id);
    try {
      TunnelGrant client =
          new TunnelGrant(
              tunnel,
              r.outerAddress(),
              gw.address(),
              r.ikeId(), // the policy's identity, as checked above
              gw.ikeId(),
              inner,
              gw.network(),
              r.objective(),
              psk,
              rule.lifetime().toSeconds(),
              null,
              null,
              null,
              null,
              null,
              rule.pool() == null ? null : TunnelGrant.VirtualIp.RECEIVED,
              null);
      granted.put(
          tunnel,
          new Granted(
              tunnel,
              r.subject(),
              gw.name(),
              r.objective(),
              rule.id(),
              clock.instant().plus(rule.lifetime()),
              inner,
              r.ikeId(),
              rule.pool() != null));
      return new Outcome(rule.id(), null, client, client.mirrored(), clientKey);
    } finally {
      if (psk != null) {
        java.util.Arrays.fill(psk, (byte) 0); // the grants hold their own copies
      }
    }
  }

  /**
   * Keys granted tunnel {@code o} by certificates: the client's public key (from its request) and
   * {@code gatewayKey} (one the gateway's agent sent ahead) certified by {@code issuer} for this
   * tunnel, each end's identity and subject, valid until the tunnel's end of life; each end's grant
   * carries its own certificate, the peer's and the authority's.
   *
   * @throws java.security.GeneralSecurityException naming what could not be certified
   */
  public Outcome certify(Outcome o, Bytes gatewayKey, Issuer issuer)
      throws java.security.GeneralSecurityException {
    TunnelGrant c = o.client();
    Granted g = granted.get(c.tunnelId());
    if (g == null) {
      throw new java.security.GeneralSecurityException("tunnel " + c.tunnelId() + " ended");
    }
    Instant now = clock.instant();
    java.time.Duration valid = java.time.Duration.between(now, g.until());
    if (valid.isNegative() || valid.isZero()) {
      throw new java.security.GeneralSecurityException("tunnel " + g.id() + "'s lifetime is over");
    }
    byte[] own;
    try {
      own = issuer.issue(o.clientKey().toArray(), g.subject(), g.id(), c.localId(), now, valid);
    } catch (java.security.GeneralSecurityException e) {
      throw new java.security.GeneralSecurityException(
          "the client's certificate: " + e.getMessage(), e);
    }
    byte[] peer;
    try {
      peer = issuer.issue(gatewayKey.toArray(), g.gateway(), g.id(), c.remoteId(), now, valid);
    } catch (java.security.GeneralSecurityException e) {
      throw new java.security.GeneralSecurityException(
          "gateway " + g.gateway() + "'s certificate: " + e.getMessage(), e);
    }
    TunnelGrant client =
        c.withCertificates(Bytes.of(own), Bytes.of(peer), Bytes.of(issuer.authority()));
    return new Outcome(o.rule(), null, client, client.mirrored(), o.clientKey());
  }

  /**
   * Null, or why request {@code r} asks for more than {@code terms}, what the policy gives its
   * subject under {@code rule}: an inner prefix beyond the subject's (or one the policy does not
   * give at all), another IKE identity, no credential where the rule takes one per tunnel, or
   * addresses another subject's live tunnel to the same gateway carries.
   */
  private String beyondTerms(
      TunnelPolicy.Allow rule, TunnelPolicy.Terms terms, TunnelRequest r, String gateway) {
    String subject = r.subject();
    if (rule.pool() != null && r.innerPrefix() != null) {
      return "inner prefix "
          + r.innerPrefix()
          + ": rule "
          + rule.id()
          + " gives each tunnel's client one address of its pool "
          + rule.pool()
          + ", handed out by the gateway: a request names none";
    }
    if (rule.pool() == null && r.innerPrefix() == null) {
      return "the request names no inner prefix, and rule "
          + rule.id()
          + " hands out no addresses (no pool=)"
          + (terms.inner() == null ? "" : ": ask for " + terms.inner() + " or a part of it");
    }
    if (rule.pool() != null) {
      return identityOrCredential(rule, terms, r, gateway); // the address comes from the pool
    }
    if (terms.inner() == null) {
      return "the tunnel policy gives "
          + subject
          + " no inner prefix (rule "
          + rule.id()
          + " has no inner=, and no <subject> names "
          + subject
          + ")";
    }
    if (!terms.inner().contains(r.innerPrefix())) {
      return "inner prefix "
          + r.innerPrefix()
          + " is not within "
          + terms.inner()
          + ", what the tunnel policy gives "
          + subject
          + ": a request may ask for less, never for more";
    }
    return identityOrCredential(rule, terms, r, gateway);
  }

  /**
   * Null, or why request {@code r}'s IKE identity or credential is beyond {@code terms}, or its
   * inner prefix (a pool's tunnel has none yet) overlaps another subject's live tunnel to the same
   * gateway.
   */
  private String identityOrCredential(
      TunnelPolicy.Allow rule, TunnelPolicy.Terms terms, TunnelRequest r, String gateway) {
    String subject = r.subject();
    if (!terms.identity(r.ikeId())) {
      return "IKE identity "
          + r.ikeId()
          + ": the tunnel policy gives "
          + subject
          + " the IKE identity "
          + terms.ikeId();
    }
    if (rule.credential() && r.credentialId() == null) {
      return "rule "
          + rule.id()
          + " takes a fresh one-time credential for each tunnel (credential=\"per-tunnel\"):"
          + " the request names none";
    }
    for (Granted g : granted.values()) {
      if (g.gateway().equals(gateway) && g.ikeId().equals(r.ikeId())) {
        return "IKE identity "
            + r.ikeId()
            + " is held by tunnel "
            + g.id()
            + " to "
            + gateway
            + " already (charon tells tunnels apart by their identities: "
            + (terms.ikeId().contains(TunnelPolicy.TAG)
                ? "ask with another {tag})"
                : "the rule's ike-id can say {tag})");
      }
      if (g.gateway().equals(gateway)
          && !g.subject().equals(subject)
          && r.innerPrefix() != null
          && g.inner().overlaps(r.innerPrefix())) {
        return "inner prefix "
            + r.innerPrefix()
            + " overlaps "
            + g.inner()
            + ", which another subject's tunnel to "
            + gateway
            + " carries";
      }
    }
    return null;
  }

  /** Null if {@code rule}'s session requirements hold for {@code subject} at {@code o}. */
  private static String sessionRefusal(
      TunnelPolicy.Allow rule, String subject, Objective o, Sessions sessions) {
    if (!rule.mlsSession()) {
      return null;
    }
    if (sessions == null) {
      return "rule " + rule.id() + " requires a multilevel session, and this PDP serves no MLS";
    }
    Integer rank = sessions.rank(subject);
    if (rank == null) {
      return "rule " + rule.id() + " requires a multilevel session: " + subject + " has none";
    }
    String from = rule.confidentialFrom();
    if (from == null || o == Objective.CONFIDENTIALITY) {
      return null;
    }
    Integer bar = sessions.levelRank(from);
    if (bar == null) {
      return "rule " + rule.id() + ": level " + from + " is not in the MLS policy";
    }
    return rank >= bar
        ? subject
            + "'s session is at or above "
            + from
            + ": rule "
            + rule.id()
            + " grants confidentiality only"
        : null;
  }

  /**
   * Sessions changed (a LOGIN, a change of level, a LOGOUT): the tunnels whose rule's session
   * requirements no longer hold are forgotten and returned, to be removed at both ends.
   */
  public List<Granted> review(Sessions sessions) {
    TunnelPolicy p = policy;
    return take(
        g -> {
          TunnelPolicy.Allow rule = p.rule(g.subject(), g.gateway());
          return rule != null && sessionRefusal(rule, g.subject(), g.objective(), sessions) != null;
        });
  }

  private static Outcome refused(String rule, String reason) {
    return new Outcome(rule, reason, null, null, null);
  }

  /** The tunnel granted as {@code id} and not ended, or null. */
  public Granted find(String id) {
    return granted.get(id);
  }

  /** The policy deciding now. */
  public TunnelPolicy policy() {
    return policy;
  }

  /** A tunnel ended (its client let it go, or it was removed): forgotten. */
  public void ended(String id) {
    granted.remove(id);
  }

  /** The tunnels of {@code subject} (its LOGOUT, its revocation), forgotten and returned. */
  public List<Granted> revokeSubject(String subject) {
    return take(g -> g.subject().equals(subject));
  }

  /** The tunnels whose lifetime is over, forgotten and returned. */
  public List<Granted> expired() {
    Instant now = clock.instant();
    return take(g -> !g.until().isAfter(now));
  }

  /**
   * A new policy: tunnels it would no longer grant (the gateway gone, no rule, not at their
   * objective, their inner prefix or IKE identity no longer what it gives, an address no longer in
   * its rule's pool, or one handed out where the rule now has the client name its prefix, or the
   * other way round) are forgotten and returned, to be removed at both ends.
   */
  public List<Granted> reload(TunnelPolicy next) {
    policy = next;
    return take(
        g -> {
          TunnelPolicy.Allow rule = next.rule(g.subject(), g.gateway());
          if (next.gateway(g.gateway()) == null
              || rule == null
              || !rule.objectives().contains(g.objective())) {
            return true;
          }
          TunnelPolicy.Terms terms = next.terms(rule, g.subject());
          if (rule.pool() != null || g.pooled()) { // an address handed out, and still to be
            return rule.pool() == null
                || !g.pooled()
                || !rule.pool().contains(g.inner())
                || !terms.identity(g.ikeId());
          }
          return terms.inner() == null
              || !terms.inner().contains(g.inner())
              || !terms.identity(g.ikeId());
        });
  }

  private List<Granted> take(java.util.function.Predicate<Granted> which) {
    List<Granted> out = new ArrayList<>();
    for (Granted g : List.copyOf(granted.values())) {
      if (which.test(g) && granted.remove(g.id(), g)) {
        out.add(g);
      }
    }
    return out;
  }

  /** The tunnels granted and not ended. */
  public List<Granted> granted() {
    return List.copyOf(granted.values());
  }

  /** For logs (no key is ever kept here). */
  public String describe() {
    return granted.size() + " tunnels granted under " + policy.describe();
  }
}
