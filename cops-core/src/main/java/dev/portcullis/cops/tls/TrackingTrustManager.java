package dev.portcullis.cops.tls;

import io.netty.handler.ssl.ResumableX509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The PKIX trust manager, noting per engine whether a handshake verified the peer's certificate (a
 * full handshake) or Netty reported a resumed session that skipped verification. Resumed sessions
 * are checked again for certificate validity dates, so no session outlives its certificate.
 */
final class TrackingTrustManager extends X509ExtendedTrustManager
    implements ResumableX509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;
  private final Set<SSLEngine> verified =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
  private final Set<SSLEngine> resumed =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  TrackingTrustManager(X509ExtendedTrustManager delegate) {
    this.delegate = delegate;
  }

  /**
   * True resumed, false full, null unknown (no peer certificate either way: a PDP without client
   * authentication on an engine that does not say); forgets the engine.
   */
  Boolean outcome(SSLEngine e) {
    boolean r = resumed.remove(e);
    boolean v = verified.remove(e);
    return r ? Boolean.TRUE : v ? Boolean.FALSE : null;
  }

  /** True if a handshake on {@code e} verified the peer's certificate; forgets that it did. */
  boolean verifiedOnce(SSLEngine e) {
    return verified.remove(e);
  }

  void forget(SSLEngine e) {
    resumed.remove(e);
    verified.remove(e);
  }

  @Override
  public void resumeClientTrusted(X509Certificate[] chain, SSLEngine engine)
      throws CertificateException {
    stillValid(chain);
    resumed.add(engine);
  }

  @Override
  public void resumeServerTrusted(X509Certificate[] chain, SSLEngine engine)
      throws CertificateException {
    stillValid(chain);
    resumed.add(engine);
  }

  private static void stillValid(X509Certificate[] chain) throws CertificateException {
    for (X509Certificate c : chain) {
      c.checkValidity();
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
    verified.add(engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
    verified.add(engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
