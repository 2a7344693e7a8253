#pragma once
// Only the HPACK inflater is used: the request reader frames HTTP/2 itself and leaves header
// decompression (Huffman codes, the dynamic table) to this library.
#include <nghttp2/nghttp2.h>
