package io.sluice.transport.netty;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Locale;
import java.util.Set;

/**
 * The rules for a unix socket's file: how long its path may be, what may be replaced when a
 * server binds, its permissions, and its removal when the server closes.
 */
final class UnixSocketFiles {
  private UnixSocketFiles() {}

  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  /**
   * Size of {@code sockaddr_un.sun_path}, the terminating NUL included: 108 bytes on Linux, 104 on
   * macOS and the BSDs.
   */
  static final int SUN_PATH_BYTES = sunPathBytes(System.getProperty("os.name", ""));

  static int sunPathBytes(String osName) {
    String os = osName.toLowerCase(Locale.ROOT);
    return os.contains("mac") || os.contains("bsd") || os.contains("darwin") ? 104 : 108;
  }

  /**
   * {@code path} when it fits the OS's socket address.
   *
   * @throws IllegalArgumentException when the path is empty or longer than the limit
   */
  static Path checkPath(Path path, int sunPathBytes) {
    String s = path.toString();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("unix socket path is empty");
    }
    int bytes = s.getBytes(StandardCharsets.UTF_8).length;
    if (bytes + 1 > sunPathBytes) {
      throw new IllegalArgumentException(
          "unix socket path is " + bytes + " bytes, over the OS limit: sun_path holds "
              + sunPathBytes + " bytes including the terminating NUL, so at most "
              + (sunPathBytes - 1) + " (use a shorter or relative path): " + s);
    }
    return path;
  }

  /**
   * Makes room for a server at {@code path}: nothing there is fine; a socket nobody listens on (left
   * by a server that died) is removed; anything else is refused.
   *
   * @throws FileAlreadyExistsException when the path is something other than a socket
   * @throws BindException when a server listens on the socket
   */
  static void prepareForBind(Path path) throws IOException {
    if (!Files.exists(path, NOFOLLOW)) {
      return;
    }
    if (!isSocket(path)) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "exists and is not a unix socket; refusing to replace it");
    }
    if (listening(path)) {
      throw new BindException("address in use: a server is listening on " + path);
    }
    try {
      Files.delete(path); // stale: its server is gone
    } catch (NoSuchFileException e) {
      // removed meanwhile
    }
  }

  /** Whether the file at {@code path} (not following links) is a socket. */
  static boolean isSocket(Path path) throws IOException {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", NOFOLLOW);
      return (mode & S_IFMT) == S_IFSOCK;
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      // no "unix" attribute view: a socket is at least "other" (not file, directory or link)
      return Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW).isOther();
    }
  }

  /**
   * Whether a server accepts on the socket at {@code path}: a non-blocking connect that succeeds,
   * or waits on a full backlog, says yes; a refused one says the socket is stale.
   */
  static boolean listening(Path path) throws IOException {
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.configureBlocking(false);
      probe.connect(UnixDomainSocketAddress.of(path));
      return true;
    } catch (ConnectException e) {
      return false;
    } catch (IOException e) {
      throw new IOException("cannot tell whether a server listens on " + path + ": " + e, e);
    }
  }

  /** The identity of the file at {@code path} (null if unknown), to remove only our own socket. */
  static Object fileKey(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW).fileKey();
    } catch (IOException e) {
      return null;
    }
  }

  static void setPermissions(Path path, Set<PosixFilePermission> permissions) throws IOException {
    try {
      Files.setPosixFilePermissions(path, permissions);
    } catch (UnsupportedOperationException e) {
      throw new IOException("cannot set the permissions of " + path + ": no POSIX file system", e);
    }
  }

  /** Removes the socket at {@code path} if it is still the one {@code key} names. */
  static void removeIfOurs(Path path, Object key) {
    try {
      if (key != null && key.equals(fileKey(path))) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      // best effort: the file is left behind, and the next bind removes it as stale
    }
  }
}
