#include "core/sha256.h"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, PiecesEqualWhole) {
  Sha256 hasher;
  hasher.Update("a");
  hasher.Update("bc");
  EXPECT_EQ(hasher.FinishHex(), Sha256Hex("abc"));
}

TEST(Sha256Test, FieldsAreUnambiguous) {
  Sha256 first;
  first.UpdateField("x", "ab");
  first.UpdateField("y", "c");
  Sha256 second;
  second.UpdateField("x", "a");
  second.UpdateField("y", "bc");
  EXPECT_NE(first.FinishHex(), second.FinishHex());
}

}  // namespace
}  // namespace kopt
