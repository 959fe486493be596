package dev.portcullis.pdp.policy;

import dev.portcullis.cops.access.AccessRequest;
import java.util.Objects;

/**
 * What a policy engine decides on, with no COPS objects in sight: who asks (the PEP's id and client
 * type), the request's context, and the access attributes the PEP sent.
 *
 * @param rType the Context object's R-Type flags
 * @param mType the Context object's M-Type
 */
public record PolicyRequest(
    String pepId, int clientType, int rType, int mType, AccessRequest access) {
  public PolicyRequest {
    Objects.requireNonNull(pepId, "pepId");
    Objects.requireNonNull(access, "access");
  }
}
