#pragma once
// Debian puts libpq's headers in a folder of their own; libpq-fe.h finds its neighbours there.
#include <postgresql/libpq-fe.h>
