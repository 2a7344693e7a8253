#pragma once
// Linux calls that Swift's Glibc module does not carry, for the relay's event loop:
// epoll, eventfd and accept4.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

static inline int tv_accept4(int listener, int flags) { return accept4(listener, 0, 0, flags); }
