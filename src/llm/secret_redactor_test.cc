#include "llm/secret_redactor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SecretRedactorTest, MasksRegisteredSecretsEverywhere) {
  SecretRedactor redactor;
  redactor.AddSecret("sk-abc123");
  EXPECT_EQ(redactor.Redact("key sk-abc123 and again sk-abc123!"), "key [REDACTED] and again [REDACTED]!");
}

TEST(SecretRedactorTest, IgnoresTooShortSecrets) {
  SecretRedactor redactor;
  redactor.AddSecret("ab");
  redactor.AddSecret("");
  EXPECT_EQ(redactor.Redact("abc ab"), "abc ab");
}

TEST(SecretRedactorTest, MasksHeaderValuesWithoutKnowingTheKey) {
  SecretRedactor redactor;
  EXPECT_EQ(redactor.Redact("Authorization: Bearer xyz-unknown\nnext"),
            "Authorization: Bearer [REDACTED]\nnext");
  EXPECT_EQ(redactor.Redact("x-api-key: abcdef"), "x-api-key: [REDACTED]");
  EXPECT_EQ(redactor.Redact(R"({"X-Api-Key":"abcdef","b":1})"), R"({"X-Api-Key":"[REDACTED]","b":1})");
  EXPECT_THAT(redactor.Redact("authorization=token123"), Not(HasSubstr("token123")));
}

TEST(SecretRedactorTest, LeavesOrdinaryTextAlone) {
  SecretRedactor redactor;
  redactor.AddSecret("sk-abc123");
  EXPECT_EQ(redactor.Redact("authentication failed; check the API key"),
            "authentication failed; check the API key");
}

TEST(SecretRedactorTest, RedactsStatusKeepingKind) {
  SecretRedactor redactor;
  redactor.AddSecret("sk-abc123");
  Status status = redactor.Redact(PermissionDenied("bad key sk-abc123"));
  EXPECT_EQ(status.kind(), ErrorKind::kPermission);
  EXPECT_EQ(status.message(), "bad key [REDACTED]");
}

TEST(SecretRedactorTest, LongerSecretMaskedWhole) {
  SecretRedactor redactor;
  redactor.AddSecret("abcd");
  redactor.AddSecret("abcdefgh");
  EXPECT_EQ(redactor.Redact("abcdefgh"), "[REDACTED]");
}

}  // namespace
}  // namespace kopt::llm
