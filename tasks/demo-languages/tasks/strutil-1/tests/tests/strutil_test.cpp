#include <gtest/gtest.h>

#include "strutil.hpp"

TEST(Trim, RemovesSpaces) {
    EXPECT_EQ(strutil::trim("  hello  "), "hello");
}

TEST(Trim, EmptyStaysEmpty) {
    EXPECT_EQ(strutil::trim(""), "");
}

TEST(Split, KeepsEmptyPieces) {
    const std::vector<std::string> expected{"a", "", "b"};
    EXPECT_EQ(strutil::split("a,,b", ','), expected);
}

TEST(Trim, RemovesTabsAndNewlines) {
    EXPECT_EQ(strutil::trim("\thello world\n"), "hello world");
}

TEST(Trim, WhitespaceOnlyBecomesEmpty) {
    EXPECT_EQ(strutil::trim(" \t\r\n "), "");
}
