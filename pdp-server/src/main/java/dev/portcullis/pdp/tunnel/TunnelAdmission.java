package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.enrol.CredentialStore;
import java.io.IOException;

/**
 * Who may ask the tunnel desk for what (the authentication steps of the dynamic VPN tunnels paper's
 * table 4): a gateway agent stands for the gateway its certificate names, at the address and IKE
 * identity the policy gives it; a client agent asks for the subject its certificate proves, with a
 * one-time credential that enrolled it and carries one tunnel only. Each check answers null or the
 * reason, safe to send and to audit.
 */
public final class TunnelAdmission {
  private final CredentialStore credentials; // null: the PDP enrols nobody

  public TunnelAdmission(CredentialStore credentials) {
    this.credentials = credentials;
  }

  /** Null if PEP {@code pepId} may stand for the gateway its request names. */
  public static String gatewayRefusal(TunnelPolicy policy, String pepId, TunnelRequest r) {
    TunnelPolicy.Gateway gw = policy.gateway(r.gateway());
    String why = null;
    if (gw == null) {
      why = "no gateway " + r.gateway() + " in the tunnel policy";
    } else if (!r.gateway().equals(pepId)) {
      why =
          "PEP "
              + pepId
              + " cannot stand for gateway "
              + r.gateway()
              + ": a gateway agent's certificate names its gateway";
    } else if (!gw.address().equals(r.outerAddress())) {
      why =
          "gateway "
              + r.gateway()
              + " is at "
              + gw.address().getHostAddress()
              + " in the tunnel policy, not "
              + r.outerAddress().getHostAddress();
    } else if (!gw.ikeId().equals(r.ikeId())) {
      why = "gateway " + r.gateway() + "'s IKE identity is " + gw.ikeId() + ", not " + r.ikeId();
    }
    return why;
  }

  /** Null if {@code r}'s subject is the PEP's proven identity with a usable credential. */
  public String clientRefusal(String pepId, TunnelRequest r) {
    if (!r.subject().equals(pepId)) {
      return "subject "
          + r.subject()
          + " is not the identity this agent's certificate proves ("
          + pepId
          + ")";
    }
    String cred = r.credentialId();
    if (cred == null) {
      return null;
    }
    if (credentials == null) {
      return "credential " + cred + ": this PDP issues no one-time credentials";
    }
    try {
      CredentialStore.Credential c = credentials.lookup(cred);
      if (c == null) {
        return "unknown credential " + cred;
      }
      if (!c.pepId().equals(pepId)) {
        return "credential " + cred + " is bound to another identity, not " + pepId;
      }
      if (credentials.state(cred) != CredentialStore.State.USED) {
        return "credential " + cred + " has not enrolled " + pepId + ": enrol with it first";
      }
      if (credentials.carriedTunnel(cred)) {
        return spent(cred); // said before the policy is asked; spend() decides for good
      }
    } catch (IOException e) {
      return "credential " + cred + " could not be checked: " + e.getClass().getSimpleName();
    }
    return null;
  }

  private static String spent(String cred) {
    return "credential " + cred + " carried a tunnel already: one tunnel per one-time credential";
  }

  /**
   * Marks credential {@code cred} as having carried tunnel {@code tunnel}, durably: null, or why
   * the tunnel may not be made (it carried one before, or the mark could not be written).
   */
  public String spend(String cred, String tunnel) {
    try {
      return credentials.spendOnTunnel(cred, tunnel) ? null : spent(cred);
    } catch (IOException x) {
      return "credential " + cred + " could not be marked spent: the tunnel waits";
    }
  }
}
