#include "strutil.hpp"

namespace strutil {

namespace {
const char* const WHITESPACE = " \t\n\r\f\v";
}  // namespace

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(WHITESPACE);
    if (first == std::string::npos) {
        return "";
    }
    const auto last = text.find_last_not_of(WHITESPACE);
    return text.substr(first, last - first + 1);
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> pieces;
    std::string current;
    for (char c : text) {
        if (c == separator) {
            pieces.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    pieces.push_back(current);
    return pieces;
}

}  // namespace strutil
