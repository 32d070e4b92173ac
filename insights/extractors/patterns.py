"""Chat-language cues the rule extractor uses: requests, commitments, decisions, blockers, …"""

from __future__ import annotations

import re

_SLACK_USER = re.compile(r"<@([A-Z0-9]+)(?:\|([^>]+))?>")
_SLACK_CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^>]+)>")
_SLACK_LINK = re.compile(r"<(https?://[^|>]+)(?:\|([^>]+))?>")
_URL = re.compile(r"https?://\S+")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+|\n+|;\s+|\s+—\s+|,\s+(?=i'll |i will |i'm going to |let me )", re.I
)
_WORD = re.compile(r"[a-z0-9][a-z0-9'_\-]*")
_TRAILING_NOISE = re.compile(r"[\s\U0001F000-\U0001FFFF\u2600-\u27BF\ufe0f]+$")
_TAG_QUESTION = re.compile(r",?\s*(?:right|yeah|no|ok|okay|correct|yes)\?+\s*$", re.I)

MENTION = re.compile(r"@([\w.\-]+)")
BOT_AUTHOR = re.compile(r"(?:bot|alerts?|pagerduty|opsgenie|sentry|grafana|monitor|datadog)\b", re.I)

SARCASM = re.compile(
    r"(?:^|\s)/s\b|🙄|🙃|\byeah,? right\b|\bsure,? because\b|\bright after i\b|\bas if\b"
    r"|\bwhat could go wrong\b|\blove that for us\b|\bexactly how i wanted\b",
    re.I,
)
DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|voted)|(?:it'?s|it is) decided"
    r"|decided to|decision(?: [\w ]{0,30})?:|final (?:decision|call)|let'?s go with"
    r"|(?:we'?re|we are|we'?ll|we will) (?:go(?:ing)? with|stick(?:ing)? with|switch(?:ing)? to)"
    r"|(?<!it's )(?<!it is )(?<!keep )\bgoing with"
    r"(?! (?:someone|somebody|him|her|them|you|me|us|friends|a friend))"
    r"|let'?s (?:switch|stick with|not|use|move|drop|standardi[sz]e|adopt)\b"
    r"|consensus (?:is|was)|\bdecided\b|go(?:ing)? ahead with)",
    re.I,
)
# "Piranesi it is then!" / "gateway API it is." — short, and not "here it is".
IT_IS = re.compile(
    r"^(?:(?:ok|okay|alright|fine|so|then)[,!.]?\s+)?(?!(?:here|there|that|this|so|yes|yeah|no|i|we|you)\b)"
    r"[\w.\-]+(?: [\w.\-]+){0,2} it is(?: then)?\s*[.!]*$",
    re.I,
)
NOT_DECIDED = re.compile(r"^(?:if|should|maybe|what if|do we|did we|have we|can we|could we)\b", re.I)
UNDECIDED = re.compile(r"\b(?:haven'?t|hasn'?t|not|never|yet to|un)\s*(?:\w+ ){0,2}decided\b", re.I)
REQUEST = re.compile(
    r"\b(?:can|could|would|will) (?:you|u|ya|someone|somebody|anyone|one of you|you guys|you all)\b"
    r"(?! (?:be\b|believe|imagine|explain|guess|tell me (?:if|why|what|how|whether)|help me understand))"
    r"|\b(?:need|want) you to\b|\bwould you mind\b|\b(?:please|pls|plz) (?!no\b|don'?t\b)\w+"
    r"|\b(?:please|pls|plz)[.!]*$",
    re.I,
)
ADDRESSED_REQUEST = re.compile(
    r"\b(?:do you )?(?:want|wanna) to\b|\bmind\b|\b(?:do|would) you have (?:time|a minute|a sec) to\b"
    r"|\bare you able to\b",
    re.I,
)
# "Ben to write the PRD", "@carla to draft the launch email": the named person owns the task.
NAMED_TASK = re.compile(r"^@?([\w.\-]+) to (?!be\b|the\b|a\b|an\b|me\b|you\b|us\b)([a-z]+)\b")
# "Paolo will rotate the credentials by Friday": said about a named person, it is their task.
NAMED_WILL = re.compile(
    r"^@?(?!(?i:i|we|you|it|this|that|they|he|she|there|which|who|what|someone|everyone|nobody)\b)([\w.\-]+)"
    r" (?:will|is going to|is gonna)(?! be\b| not\b| never\b) ([a-z]+)\b"
)
NAMED_SPLIT = re.compile(r",\s+(?:and\s+)?(?=@?[\w.\-]+ to [a-z]+\b)")
IMPERATIVE = re.compile(
    r"^(?:just |pls |please )?(?:send|share|check|review|update|fix|rebase|add|write|look|take|ping|call"
    r"|book|file|open|make|prepare|schedule|sign|approve|merge|deploy|test|confirm|draft|grab|create|move"
    r"|set up|follow up|reach out|email|post|upload|finish|handle|remind)\b",
    re.I,
)
COMMITMENT = re.compile(
    r"\b(?:i'll|i will|i'm going to|i am going to|im going to|i'm gonna|im gonna|^let me"
    r"|i can (?:take|do|handle|write|send|grab|own|draft|prepare|look|check|pick|set up|cover|help)"
    r"|will do|i'm on it|i got (?:this|it))\b",
    re.I,
)
# Intentions that are moods, not tasks ("I'm gonna make it happen!", "I'll always remember that").
NOT_COMMITMENT = re.compile(
    r"\b(?:i'll|i will|i'm gonna|i'm going to|gonna) (?:definitely |always |probably |really |just )?"
    r"(?:be|never|pass|think|probably not|keep|do my best|try my best|remember|stick|continue|miss|always"
    r"|consider|love|enjoy|start thinking|make it(?! to| by| at| on| work)|reach|get through|do great"
    r"|nail it|cherish|check (?:it|them|that|this) out|try (?:it|them|that|this) out|stay)\b"
    r"|\bi'?m going to (?:a|an|the|my|our|his|her|their|be)\b|\bi can (?:\w+ )?anything\b"
    r"|\blet me (?:know|guess|see|think)\b"
    r"|\b(?:i'll|i will|gonna) (?:have to|make sure to|let you know|keep you (?:posted|updated|in the loop)"
    r"|give it a (?:go|try|shot))\b",
    re.I,
)
ON_IT = re.compile(
    r"^(?:ok,? |yep,? |sure,? )?(?:on it|looking into it|taking a look|checking now|investigating)\b", re.I
)
# "we'll ship a hotfix tomorrow": a team promise with a date is a task for whoever said it.
TEAM_COMMITMENT = re.compile(r"\b(?:we'll|we will|we're going to) (?!see\b|go with|be\b|need\b)\w+", re.I)
# "will send after lunch": a commitment with the "I" dropped, as chat does.
DROPPED_SUBJECT = re.compile(r"^(?:(?:ok|okay|sure|yep|yes),? )?(?:will|gonna|can do) (?!be\b)\w+", re.I)
TODO = re.compile(r"^(?:todo|to-do|action item|action|ai)(?: for (@?[\w.\-]+))?\s*:\s*", re.I)
# The words of "ok, will do", "not yet, on it tomorrow": nothing about what the task is.
ACK_WORDS = re.compile(
    r"\b(?:i'?m|not yet|will do|can do|on it|sure|yes|yep|ok|okay|tomorrow|today|tonight|later|soon|asap"
    r"|in the morning|this (?:evening|afternoon|week|weekend)|after lunch|next week)\b",
    re.I,
)
ACK = re.compile(r"^(?:sure|yes|yep|yup|ok|okay|k|will do|on it|sounds good|np|no problem|👍|✅|ack)\b", re.I)
DONE = re.compile(
    r"^(?:done|booked|sent|merged|shipped|fixed|published|uploaded|finished|pushed|submitted|paid|called"
    r"|signed|filed|renewed|rewritten|replied|ordered|✅)\b"
    r"|\b(?:done|sent it|is up|updated|published|merged|booked|fixed|uploaded|shipped|submitted|paid"
    r"|called|signed|filed|rewritten|picked up|got the|bought)\b|✅",
    re.I,
)
DEADLINE = re.compile(
    r"\b(?:deadline|due|closes?|freeze|cut-?off|submitted|submit|go(?:es)? live|launch(?:es|ing)?"
    r"|expires?|needs? to be (?:final|done|ready|in|submitted|signed|approved)|must be|has to be"
    r"|eol|end of life|end-of-life|sunset|(?:needs?|wants?|expects?|requires?)\b[^.?!]{0,60}\bby)\b",
    re.I,
)
BLOCKER = re.compile(
    r"\b(?:blocked|blocking|blocker|outage|(?<!without )incident(?! review| report)|sev ?[0-3]|p[01]"
    r"|is down|are down|went down|(?:vpn|site|server|api|app|prod|wifi|network|database|db|website|email)"
    r" (?:is )?down|(?:is|are|been|'s) down for|(?:been|is|are|was|were) down since"
    r"|crash(?:es|ed|ing)?|broken|throwing errors|failing|fails|500s?|5\d\d errors?"
    r"|can'?t (?:deploy|log ?in|edit|access|reach|merge|push|connect|build|work)"
    r"|cannot (?:deploy|log ?in|edit|access|reach|merge|push|connect)|nobody can|not working"
    r"|doesn'?t work|stopped working|keeps? (?:crashing|failing|logging \w+ out)|error rate"
    r"|data loss|security (?:breach|incident)|disk (?:usage|space)"
    r"|stuck (?:since|at)|(?:is|are|been|'s) stuck"
    r"|force clos(?:es|ed|ing)"
    r"|unreachable|times? out|timing out|hangs|(?:is|are) hanging(?! out| in there))\b",
    re.I,
)
# "the login bug is back on staging": trouble returning, not a recovery.
REGRESSION = re.compile(
    r"\b(?:bug|issue|error|errors|problem|crash|regression|outage)\b[^.!?]{0,40}\bis back\b", re.I
)
# "after the last outage …" looks back; it reports nothing new.
PAST_TROUBLE = re.compile(
    r"\b(?:last|previous|after the|since the|during the|remember (?:the|when))\s+\w*\s*(?:outage|incident)",
    re.I,
)
RECOVERED = re.compile(
    r"\b(?:recovered|resolved|is back|are back|back to (?:normal|baseline)|fixed|mitigated|all clear"
    r"|working again|closed the (?:incident|ticket|issue)|incident (?:is )?closed|is gone|fix (?:is )?merged"
    r"|merged the fix|green again|closing the (?:incident|ticket|issue))\b",
    re.I,
)
MEETING_AS_VERB = re.compile(r"(?:'m|\bam|'re|\bare|\bis|\bwas|\bwere|\bbeen|\bbe) meeting\b", re.I)
MEETING = re.compile(
    r"\b(?:meeting|meetup|meet-up|stand-?up|sync|1:1|1-on-1|one-on-one|offsite|off-site|kick-?off|workshop"
    r"|huddle|all-?hands|interview|retro|retrospective|study session|webinar|office hours"
    r"|(?:design|code|forecast|sprint|quarterly|performance|pipeline|budget|roadmap|security|product"
    r"|incident) review|(?:the|a|our|renewal|planning|sales|team|weekly|daily|quick|intro|zoom|video"
    r"|conference|discovery|status) call|(?:call|raid|dinner|lunch|party|game night) (?:is|at|on|moved"
    r"|tomorrow|today|tonight))\b",
    re.I,
)
QUESTION_OPENER = re.compile(
    r"^(?:so |ok |hey |also |btw |and |quick q:? )?(?:(?:who|what|when|where|why|how|which)"
    r"(?:'s|'re| (?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|else|much|many|long"
    r"|often|come))\b|anyone\b"
    r"|any ?body\b|(?:is|are|do|does|did|can|could|has|have|should|would|will|was|were) (?:anyone|anybody"
    r"|someone|somebody|we|you|i|it|there|this|that|the|our|your)\b)",
    re.I,
)
RHETORICAL = re.compile(
    r"\b(?:who|what|why|how)(?:'s| \w+)? even\b|\bwhat are we even\b|[🙃🙄😒]|\bis it just me\b", re.I
)
# Greetings phrased as questions; nobody waits for an answer to "how have you been?".
SMALL_TALK = re.compile(
    r"\bhow (?:are|r) (?:you|u|ya)\b|\bhow(?:'re| are) ya\b|\bhow(?:'ve| have) you been\b|\bwhat'?s up\b"
    r"|\bhow'?s (?:it going|everything|life|things|your day|your week|the weekend)\b|\banything new\b"
    r"|\bhow (?:was|is) your (?:day|weekend|week)\b|\bwhat'?s new\b|\bhow(?:'re| are) you doing\b|\bsup\b"
    r"|\bhow (?:ya|u|you|have ya) been\b|\bguess what\b",
    re.I,
)
ASK_NOT_TASK = re.compile(
    r"\b(?:can|could) (?:you|someone|anyone)"
    r" (?:explain|tell me|confirm (?:whether|if)|let me know (?:whether|if))\b",
    re.I,
)
ANSWER_START = re.compile(
    r"^(?:yes|yeah|yep|yup|ya|no|nope|nah|sure|it (?:is|does|did|was|will|should)|it'?s|its|not|i think"
    r"|probably|maybe|definitely|afaik|iirc|should be|we can|we should|you can|you should|i'd|me\b"
    r"|wasn'?t|i did|i have|i do|there'?s|try|because|ask|i vote|\+1|how about|what about|i'd go with)\b",
    re.I,
)
JOKE_START = re.compile(r"^(?:lol|lmao|lmfao|haha|hah|rofl|😂|🤣)", re.I)
VOCATIVE_LEAD = re.compile(
    r"^(?:(?:hey|hi|hello|yo|ok|okay|ugh|oh|so|also|perfect|thanks|great|cool)[,!.]?\s+)+", re.I
)
EVERYONE = re.compile(
    r"\b(?:someone|somebody|anyone|anybody|everyone|everybody|y'?all|you all|guys|folks|team)\b", re.I
)

_STOP_TEXT = """the a an and or but if so of to in on at for with from by is are was were be been it its it's
this that these those i you he she we they me my your our their them him her us do does did done have has had
can could would should will shall may might must not no yes just also still any anyone someone know what who
when where why how which there here about into out up down over than then too very really get got let lets
let's thing things one some all else wait ok okay yeah yep lol"""
STOPWORDS = frozenset(_STOP_TEXT.split())


def normalize(text: str) -> str:
    """Slack markup to plain chat text; URLs become a placeholder so they never look like cues."""
    text = _SLACK_USER.sub(lambda m: "@" + (m.group(2) or m.group(1)), text)
    text = _SLACK_CHANNEL.sub(lambda m: "#" + m.group(1), text)
    text = _SLACK_LINK.sub(lambda m: m.group(2) or "<link>", text)
    return _URL.sub("<link>", text).strip()


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if len(w) >= 3 and w not in STOPWORDS and not w.startswith("<")}


def clean_end(sentence: str) -> str:
    """Drop trailing emoji and whitespace so "really? 😭" still ends with "?"."""
    return _TRAILING_NOISE.sub("", sentence)


def strip_tag_question(sentence: str) -> str:
    """ "we agreed on X, right?" states X; the tag only asks for a nod."""
    return _TAG_QUESTION.sub("", clean_end(sentence))


def is_question(sentence: str) -> bool:
    body = clean_end(sentence)
    return body.endswith("?") or bool(QUESTION_OPENER.match(VOCATIVE_LEAD.sub("", body)))
