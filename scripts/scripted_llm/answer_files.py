"""Policy `answers` of server.py: serves `kopt optimize --generator llm` runs (the golden
tests, tests/gpu/optimize_on_device.sh). Usage: server.py answers PORT ANSWER_DIR LOG.

Each request gets the next file of ANSWER_DIR (sorted by name): a .cu file wrapped in a
```cuda fence; a *.tool.json file {"content": "...", "tool_calls": [{"name": ...,
"arguments": {...}}]} as an assistant turn that calls tools (finish_reason "tool_calls",
ids "call_<answer>_<index>"); any other file as it is. Once they run out: "I have no
further ideas." Every request is logged (JSON lines: the model, whether an Authorization
header came, the tools offered, the results of earlier tool calls it carries, the last
user message's first 4,000 characters) so a run can show what the generator was told.
The usage counts the last user message.
"""
import json
import os

from server import Answer, last_user_text


class AnswerFiles:
    threaded = False

    def __init__(self, answer_dir, log_path):
        self.answers = sorted(os.path.join(answer_dir, f) for f in os.listdir(answer_dir)
                              if os.path.isfile(os.path.join(answer_dir, f)))
        self.served = 0
        self.log_path = log_path

    def next_message(self):
        """The next assistant message and its finish_reason."""
        if self.served >= len(self.answers):
            return {"role": "assistant", "content": "I have no further ideas."}, "stop"
        path = self.answers[self.served]
        self.served += 1
        text = open(path).read()
        if path.endswith(".tool.json"):
            script = json.loads(text)
            calls = [{"id": f"call_{self.served}_{i}", "type": "function",
                      "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}
                     for i, call in enumerate(script["tool_calls"])]
            return {"role": "assistant", "content": script.get("content"), "tool_calls": calls}, "tool_calls"
        content = f"Here is the kernel.\n\n```cuda\n{text}\n```\n" if path.endswith(".cu") else text
        return {"role": "assistant", "content": content}, "stop"

    def answer(self, body, headers):
        messages = body.get("messages", [])
        user = last_user_text(messages)
        log = {"model": body.get("model"), "authorization_present": "Authorization" in headers,
               "tools": [tool.get("function", {}).get("name") for tool in body.get("tools", [])],
               "tool_results": [{"tool_call_id": m.get("tool_call_id"),
                                 "first_line": (m.get("content") or "").split("\n")[0]}
                                for m in messages if m.get("role") == "tool"],
               "user": user[:4000]}
        message, finish_reason = self.next_message()
        return Answer(message, finish_reason, prompt_chars=len(user), reply_id=f"scripted-{self.served}", log=log)


def make_policy(args):
    if len(args) != 2:
        raise SystemExit("usage: server.py answers PORT ANSWER_DIR LOG")
    return AnswerFiles(args[0], args[1])
