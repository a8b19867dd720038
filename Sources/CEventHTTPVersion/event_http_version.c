#include <sys/types.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include "event_http_version.h"

void fedsearch_evhttp_request_version(const struct evhttp_request *request, int *major, int *minor) {
    *major = request->major;
    *minor = request->minor;
}
