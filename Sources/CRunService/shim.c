#define _GNU_SOURCE
#include "CRunService.h"
#include <stddef.h>
#include <sys/socket.h>

int crs_peer_uid(int fd, uid_t *uid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    *uid = cred.uid;
    return 0;
}

int crs_accept_cloexec(int listener) { return accept4(listener, NULL, NULL, SOCK_CLOEXEC); }

short crs_spawn_setsid_flag(void) { return POSIX_SPAWN_SETSID; }

int crs_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
