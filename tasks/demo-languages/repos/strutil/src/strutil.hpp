#pragma once

#include <string>
#include <vector>

namespace strutil {

// The text without leading and trailing whitespace.
std::string trim(const std::string& text);

// The pieces of text between separators; empty pieces are kept.
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace strutil
