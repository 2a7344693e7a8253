#pragma once
// Linux calls that Swift's Glibc module does not carry, for the relay's event loop:
// epoll, eventfd and accept4.
// No _GNU_SOURCE here: it changes glibc's own structs (fd_set's field names), and a module
// whose headers read them otherwise (COpenSSL) then clashes with this one, depending on
// which of the two clang builds first. accept4 is declared by hand instead.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

static inline int tv_accept4(int listener, int flags) { return accept4(listener, 0, 0, flags); }
