import Foundation

/// The signals a spawned child starts with: none blocked and each at its default, whatever this process ignores
/// (SIGPIPE) and Dispatch blocks on its threads.
public enum SpawnSignals {
    /// Sets them in `attributes`; returns the flags that make them count, for `posix_spawnattr_setflags`.
    public static func reset(_ attributes: inout posix_spawnattr_t) -> Int16 {
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        return Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
    }
}
