package dev.portcullis.tunnel.vici;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A scripted VICI server on a unix socket of the test's own, for what a real charon will not do on
 * request (answer late, send bytes that are not VICI, go away mid-command). Each request is
 * answered with the frames the script returns for it (events first, then the answer), raw.
 */
final class FakeCharon implements AutoCloseable {
  final Path socket;
  final List<ViciPacket> received = new CopyOnWriteArrayList<>();
  private final ServerSocketChannel server;
  private final Thread thread;
  private volatile SocketChannel client;

  FakeCharon(Path dir, Function<ViciPacket, List<byte[]>> script) throws IOException {
    this.socket = dir.resolve("charon.vici");
    Files.deleteIfExists(socket);
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    thread =
        new Thread(
            () -> {
              try (SocketChannel c = server.accept()) {
                client = c;
                while (true) {
                  ByteBuffer len = ByteBuffer.allocate(4);
                  if (!fill(c, len)) {
                    return;
                  }
                  ByteBuffer p = ByteBuffer.allocate(len.getInt(0));
                  if (!fill(c, p)) {
                    return;
                  }
                  ViciPacket request = ViciCodec.decode(p.array());
                  received.add(request);
                  for (byte[] frame : script.apply(request)) {
                    if (frame == null) {
                      return; // the script says: go away
                    }
                    c.write(ByteBuffer.wrap(frame));
                  }
                }
              } catch (IOException e) {
                // the test closed it
              }
            },
            "fake-charon");
    thread.setDaemon(true);
    thread.start();
  }

  private static boolean fill(SocketChannel c, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (c.read(b) < 0) {
        return false;
      }
    }
    return true;
  }

  static byte[] answer(ViciMessage m) {
    return ViciCodec.frame(new ViciPacket(ViciPacket.Type.CMD_RESPONSE, null, m));
  }

  static byte[] of(ViciPacket.Type type) {
    return ViciCodec.frame(new ViciPacket(type, null, ViciMessage.EMPTY));
  }

  static byte[] event(String name, ViciMessage m) {
    return ViciCodec.frame(new ViciPacket(ViciPacket.Type.EVENT, name, m));
  }

  @Override
  public void close() throws IOException {
    server.close();
    SocketChannel c = client;
    if (c != null) {
      c.close();
    }
    Files.deleteIfExists(socket);
  }
}
