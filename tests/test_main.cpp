// The one doctest main of the test binary; every suite is registered with meson test().
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
