#pragma once
// <regex>, without g++-12's false -Wmaybe-uninitialized warnings inside it (on the
// std::function members of its automaton) that sanitizer builds raise: tools/test
// --sanitize builds with -Werror too. Include this instead of <regex>.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
