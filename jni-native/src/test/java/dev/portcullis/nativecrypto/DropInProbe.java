package dev.portcullis.nativecrypto;

import java.security.Provider;
import java.security.Security;
import java.util.HexFormat;
import java.util.ServiceLoader;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A plain JCA program, run in a fresh JVM by {@link DropInTest}: finds PortcullisNative the way its
 * first argument says, MACs with it, and prints what it found. Nothing of Portcullis's own is used
 * beyond the provider class name.
 */
public final class DropInProbe {
  private DropInProbe() {}

  public static void main(String[] args) throws Exception {
    Provider p;
    switch (args[0]) {
      case "service-loader" -> {
        p = null;
        for (Provider each : ServiceLoader.load(Provider.class)) {
          if (each.getName().equals("PortcullisNative")) {
            p = each;
          }
        }
      }
      case "add-provider" -> {
        Security.addProvider(
            (Provider)
                Class.forName("dev.portcullis.nativecrypto.PortcullisNativeProvider")
                    .getConstructor()
                    .newInstance());
        p = Security.getProvider("PortcullisNative");
      }
      case "java-security" -> p = Security.getProvider("PortcullisNative"); // from the file
      default -> throw new IllegalArgumentException(args[0]);
    }
    if (p == null) {
      System.out.println("not found");
      return;
    }
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    Mac mac = Mac.getInstance("HmacSHA256", p);
    mac.init(new SecretKeySpec("Jefe".getBytes("US-ASCII"), "HmacSHA256"));
    byte[] tag = mac.doFinal("what do ya want for nothing?".getBytes("US-ASCII"));
    System.out.println("found " + p.getName() + " " + p.getInfo());
    System.out.println("HmacSHA256 " + HexFormat.of().formatHex(tag));
    System.out.println("by name: " + (Security.getProvider("PortcullisNative") != null));
    System.out.println(
        "Mac.getInstance(HmacSHA256) default: "
            + Mac.getInstance("HmacSHA256").getProvider().getName());
  }
}
