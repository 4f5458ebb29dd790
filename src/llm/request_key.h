// The canonical form of a ChatRequest and its SHA-256, shared by the response
// cache and the transcript.
//
// Canonical JSON: keys sorted, no whitespace, UTF-8 as given; fields
//   {"max_tokens","messages":[{"content","role":"user"|"assistant"|"tool"}],
//    "model","n","stop":[...],"system","temperature"}
// plus, only when present (so a request without tools hashes as before):
// a message's "tool_calls" (assistant), "tool_call_id" and "is_error" (tool,
// is_error only when true), and the request's "tools" (llm/tool_json.h).
// The transcript hash is SHA-256 (lower-case hex) of exactly that text. The
// cache key adds "provider" and "base_url". Neither ever contains the key,
// and `purpose` is not part of either (the same question asked for two
// purposes is the same request).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "llm/chat.h"
#include "llm/config.h"

namespace kopt::llm {

// `request.model` when set, else `configured_model`.
std::string EffectiveModel(const ChatRequest& request, const std::string& configured_model);

// Canonical JSON of the request with its effective model.
std::string CanonicalRequestJson(const ChatRequest& request, const std::string& configured_model);
// The same plus provider and base URL (the response cache's input).
std::string CanonicalCacheJson(const ChatRequest& request, const LlmConfig& config);

// Lower-case hex SHA-256 (OpenSSL EVP).
std::string Sha256Hex(std::string_view data);

// Parses a request object as written in a transcript (fields as in the
// canonical form; absent fields take ChatRequest's defaults, "stop" may be
// absent). Errors name `where` and the field.
Result<ChatRequest> RequestFromJsonText(std::string_view json_text, const std::string& where);

std::string_view RoleName(Role role);

}  // namespace kopt::llm
