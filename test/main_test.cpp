// The doctest runner's main(): every *_test.cpp links into one binary.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
