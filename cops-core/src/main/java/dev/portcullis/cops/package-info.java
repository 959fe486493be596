/**
 * COPS, the Common Open Policy Service protocol: message model, codec and Integrity object.
 *
 * <ul>
 *   <li>RFC 2748 section 2.1: the common header ({@link dev.portcullis.cops.OpCode}, the solicited
 *       flag, the client type).
 *   <li>RFC 2748 section 2.2: the sixteen objects, one record each ({@link
 *       dev.portcullis.cops.Handle}, {@link dev.portcullis.cops.Context}, ... all implementing
 *       {@link dev.portcullis.cops.CopsObject}), their headers ({@link
 *       dev.portcullis.cops.ObjectType}: C-Num and C-Type, {@link dev.portcullis.cops.CNum}), and
 *       the code points they carry ({@link dev.portcullis.cops.ErrorCode}, {@link
 *       dev.portcullis.cops.ReasonCode}, {@link dev.portcullis.cops.ReportType}, {@link
 *       dev.portcullis.cops.DecisionCommand}).
 *   <li>RFC 2748 section 3: the ten operations, one record each ({@link
 *       dev.portcullis.cops.Request}, {@link dev.portcullis.cops.Decision}, ... all implementing
 *       {@link dev.portcullis.cops.CopsMessage}), their grammar enforced when a message is built
 *       and when it is decoded: {@link dev.portcullis.cops.CopsCodec} frames and encodes, {@code
 *       ObjectReader} reads each object, {@code MessageGrammar} checks each operation.
 *   <li>RFC 4261 section 4: the Integrity-TLS object and its error sub-codes.
 *   <li>RFC 2748 sections 2.2.16 and 4: the HMAC Integrity object, in {@code
 *       dev.portcullis.cops.integrity}.
 *   <li>RFC 3084 section 4: COPS-PR sub-objects, in {@code dev.portcullis.cops.pr}.
 * </ul>
 *
 * <p>The byte-level reference, with what Portcullis adds and where it departs from the RFCs, is
 * {@code docs/cops-wire.md}.
 */
package dev.portcullis.cops;
