package io.sluice.transport.netty;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

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

  /** Longest a server waits for another that is binding the same socket file. */
  static final long BIND_LOCK_WAIT_MILLIS = 10_000;

  /**
   * Servers of this JVM binding a socket file now, by the file's absolute path. An entry lives
   * while a server holds or waits for its lock, so the map does not grow with every path a process
   * ever bound.
   */
  private static final ConcurrentHashMap<Path, Turn> BINDING = new ConcurrentHashMap<>();

  /** One path's turn-taking within this JVM: the semaphore, and how many servers hold or want it. */
  private static final class Turn {
    final Semaphore semaphore = new Semaphore(1);
    int users; // changed only inside BINDING.compute for this path

    static Turn join(Path key) {
      return BINDING.compute(
          key,
          (k, t) -> {
            Turn turn = t == null ? new Turn() : t;
            turn.users++;
            return turn;
          });
    }

    void leave(Path key) {
      BINDING.computeIfPresent(key, (k, t) -> --t.users == 0 ? null : t);
    }
  }

  /** Paths whose bind lock a server of this JVM holds or waits for (for tests). */
  static int pathsBeingBound() {
    return BINDING.size();
  }

  /**
   * Held while a server makes room for its socket and binds it: replacing a stale socket is
   * check-then-delete, and two servers doing it at once could each delete what the other had just
   * bound (both then bound, one of them unreachable). Among processes the lock is a POSIX record
   * lock ({@code fcntl}, through {@link FileChannel#tryLock()}) on {@code <socket>.lock} beside the
   * socket (made 0600, never followed if a link, and left in place: removing it would race), within
   * this JVM a semaphore per path, since a process's own record locks do not exclude its threads.
   *
   * <p>A local user who can write the socket's directory can hold that lock, or put a link or a
   * file of theirs at the lock's path, and so keep the server from binding (a {@link
   * BindException} after at most {@link #BIND_LOCK_WAIT_MILLIS}, or at once). That gives them
   * nothing new: whoever can write the directory can already take the socket's own path. Keep
   * sockets in a directory only the service can write.
   */
  static final class BindLock implements AutoCloseable {
    private final Path key;
    private final Turn inJvm;
    private final FileChannel file;

    private BindLock(Path key, Turn inJvm, FileChannel file) {
      this.key = key;
      this.inJvm = inJvm;
      this.file = file;
    }

    @Override
    public void close() {
      try {
        file.close(); // releases the record lock
      } catch (IOException e) {
        // closing a lock file's channel: nothing to do about it
      } finally {
        inJvm.semaphore.release();
        inJvm.leave(key);
      }
    }
  }

  /**
   * Takes the bind lock of the socket at {@code path}, waiting at most {@link
   * #BIND_LOCK_WAIT_MILLIS} for another server that holds it.
   *
   * @throws BindException when another server keeps it longer
   */
  static BindLock lockForBind(Path path) throws IOException {
    Path key = path.toAbsolutePath().normalize();
    Turn inJvm = Turn.join(key);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BIND_LOCK_WAIT_MILLIS);
    try {
      if (!inJvm.semaphore.tryAcquire(BIND_LOCK_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        inJvm.leave(key);
        throw new BindException("another server of this process is binding " + path);
      }
    } catch (InterruptedException e) {
      inJvm.leave(key);
      Thread.currentThread().interrupt();
      throw new BindException("interrupted while waiting to bind " + path);
    }
    FileChannel file = null;
    try {
      Path lockFile = key.resolveSibling(key.getFileName() + ".lock");
      file = openLockFile(lockFile);
      while (file.tryLock() == null) {
        if (System.nanoTime() - deadline > 0) {
          throw new BindException("another process is binding " + path + " (it holds " + lockFile + ")");
        }
        Thread.sleep(10); // tryLock has no timed wait; another process's bind takes milliseconds
      }
      return new BindLock(key, inJvm, file);
    } catch (IOException | RuntimeException e) {
      closeQuietly(file);
      inJvm.semaphore.release();
      inJvm.leave(key);
      throw e;
    } catch (InterruptedException e) {
      closeQuietly(file);
      inJvm.semaphore.release();
      inJvm.leave(key);
      Thread.currentThread().interrupt();
      throw new BindException("interrupted while waiting to bind " + path);
    }
  }

  private static FileChannel openLockFile(Path lockFile) throws IOException {
    Set<OpenOption> options =
        Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    try {
      return FileChannel.open(
          lockFile,
          options,
          PosixFilePermissions.asFileAttribute(
              EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
    } catch (UnsupportedOperationException e) {
      return FileChannel.open(lockFile, options); // no POSIX file system
    }
  }

  private static void closeQuietly(FileChannel c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // nothing to do
      }
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
