#ifndef CRUNSERVICE_H
#define CRUNSERVICE_H
// What Swift does not import from glibc for the run socket and the run process: `struct ucred` (behind
// _GNU_SOURCE), POSIX_SPAWN_SETSID and posix_spawn_file_actions_addclosefrom_np.
#include <spawn.h>
#include <sys/types.h>

/// The user ID of the process at the other end of a connected Unix socket (SO_PEERCRED); 0 on success, else -1 with
/// errno set.
int crs_peer_uid(int fd, uid_t *uid);

/// accept4 with SOCK_CLOEXEC: a connection never leaks into a process the run starts.
int crs_accept_cloexec(int listener);

/// POSIX_SPAWN_SETSID: the child starts a session of its own, away from the terminal's hang-up.
short crs_spawn_setsid_flag(void);

/// Closes every descriptor from `lowest` up in the child (glibc 2.34+).
int crs_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest);
#endif
