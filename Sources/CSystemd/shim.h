// System headers first, so their definitions match Swift's Glibc module.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

