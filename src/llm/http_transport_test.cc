#include "llm/http_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/local_llm_server_test_util.h"

namespace kopt::llm {
namespace {

using ::testing::HasSubstr;

TEST(CurlHttpTransportTest, PostsAndReturnsStatusHeadersAndBody) {
  testing::LocalLlmServer server;
  server.Enqueue("/echo", {418, "teapot body", {{"X-Custom-Header", "Value 1"}}});
  CurlHttpTransport transport;
  HttpRequest request{server.BaseUrl() + "/echo", {{"X-Sent", "yes"}}, "payload", 2, 2};
  auto response = transport.Post(request);
  ASSERT_TRUE(response.ok()) << response.status().message();
  EXPECT_EQ(response->status, 418);
  EXPECT_EQ(response->body, "teapot body");
  EXPECT_EQ(response->headers["x-custom-header"], "Value 1");
  auto received = server.Requests();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].body, "payload");
  EXPECT_EQ(received[0].headers["x-sent"], "yes");
}

TEST(CurlHttpTransportTest, RefusedConnectionNamesUrlAndCurlError) {
  std::string url = "http://127.0.0.1:" + std::to_string(testing::ClosedLocalPort()) + "/x";
  auto response = CurlHttpTransport().Post({url, {}, "", 2, 2});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().kind(), ErrorKind::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr(url));
  EXPECT_THAT(response.status().message(), HasSubstr("curl error 7"));
}

TEST(CurlHttpTransportTest, ReadTimeout) {
  testing::LocalLlmServer server;
  server.Enqueue("/slow", {200, "late", {}, 4.0});
  auto response = CurlHttpTransport().Post({server.BaseUrl() + "/slow", {}, "", 2, 1});
  ASSERT_FALSE(response.ok());
  EXPECT_THAT(response.status().message(), HasSubstr("curl error 28"));
}

TEST(CurlHttpTransportTest, ConcurrentPostsFromSeveralThreads) {
  testing::LocalLlmServer server;
  for (int i = 0; i < 8; ++i) server.Enqueue("/p", {200, "ok"});
  CurlHttpTransport transport;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto response = transport.Post({server.BaseUrl() + "/p", {}, "x", 2, 2});
      if (response.ok() && response->body == "ok") ++ok;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 8);
}

}  // namespace
}  // namespace kopt::llm
