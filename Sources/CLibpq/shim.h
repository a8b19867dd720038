// libpq, PostgreSQL's C client library (Debian: libpq-dev). Imported only by FederatedSearchPostgres.
#include <libpq-fe.h>
