// System headers first, so their definitions match Swift's Glibc module.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

// Linux's `struct ucred` (SO_PEERCRED) is only declared under _GNU_SOURCE, which Swift's
// Glibc module does not set; this is the same layout under a name of our own.
struct fedsearch_peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};
