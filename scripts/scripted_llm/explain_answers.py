"""Policy `explain` of server.py: the answers behind the `kopt explain --llm` golden
transcripts (tests/golden/llm/record.sh). Usage: server.py explain PORT FIRST_ANSWER_FILE
[REGENERATED_ANSWER_FILE].
  - a request whose prompt asks for hypotheses gets HYPOTHESES below;
  - a request with three messages besides the system one (a regeneration) gets
    REGENERATED_ANSWER_FILE, when given;
  - any other request gets FIRST_ANSWER_FILE.
Replies carry the fixed model "golden-model-1", id "chatcmpl-golden" and usage 1000 + 200
tokens, as the recorded transcripts do. Requests are not logged.
"""
from server import Answer

HYPOTHESES = ('```json\n[{"kernel": "", "findings": ["uncoalesced_loads"], "lines": [], '
              '"title": "Strided global loads", "reason": "each thread reads one float far from its '
              'neighbours"}]\n```')


class ExplainAnswers:
    threaded = False
    log_path = None

    def __init__(self, first, regenerated):
        self.first, self.regenerated = first, regenerated

    def answer(self, body, headers):
        messages = body.get("messages", [])
        everything = " ".join(str(m.get("content", "")) for m in messages)
        if "predict the likely" in everything:
            content = HYPOTHESES
        elif len([m for m in messages if m.get("role") != "system"]) >= 3 and self.regenerated:
            content = open(self.regenerated, encoding="utf-8").read()
        else:
            content = open(self.first, encoding="utf-8").read()
        return Answer({"role": "assistant", "content": content}, reply_id="chatcmpl-golden",
                      model="golden-model-1",
                      usage={"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200})


def make_policy(args):
    if len(args) not in (1, 2):
        raise SystemExit("usage: server.py explain PORT FIRST_ANSWER_FILE [REGENERATED_ANSWER_FILE]")
    return ExplainAnswers(args[0], args[1] if len(args) > 1 else None)
