#ifndef FEDSEARCH_EVENT_HTTP_VERSION_H
#define FEDSEARCH_EVENT_HTTP_VERSION_H

struct evhttp_request;

/// The HTTP version a request was sent with (`major` 1, `minor` 1 for HTTP/1.1). libevent 2.1
/// has no accessor for it; its public `event2/http_struct.h` holds the fields, and is read
/// only in this file so that every other module keeps `evhttp_request` opaque.
void fedsearch_evhttp_request_version(const struct evhttp_request *request, int *major, int *minor);

#endif
