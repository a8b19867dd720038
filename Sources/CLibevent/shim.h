// System headers first: libevent's event-config.h defines _GNU_SOURCE, which would give
// fd_set a different member name here than in Swift's Glibc module.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/bufferevent.h>
#include <event2/buffer.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/dns.h>
#include <event2/keyvalq_struct.h>
