"""Offline rule-based extractor: decisions, action items (owner + due), deadlines, unanswered
questions, blockers and meetings from one platform + channel conversation."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

from app.core.clock import DAY_MS, HOUR_MS, iso
from insights.extractors import labels
from insights.extractors import patterns as p
from insights.extractors.dates import find_dates, pick_due
from insights.model import ChatMessage, InsightDraft, InsightKind, InsightStatus, TimelineEvent

ACCEPT_WINDOW_MS = 3 * HOUR_MS  # an "on it" later than this answers something else
ANSWER_WINDOW_MS = DAY_MS
DONE_WINDOW_MS = 14 * DAY_MS
RECOVERY_WINDOW_MS = 2 * DAY_MS
ADJACENT_MESSAGES = 3
PAST_SLACK_MS = 12 * HOUR_MS  # "the call at 9 today", said at 10, still names today's meeting
_YOU = re.compile(r"\b(?:you|your|u)\b", re.I)
# "Great, let's go with that": agreeing to what was just said, which is the decision itself.
_AGREEMENT = re.compile(r"\b(?:go(?:ing)? with|stick with|do) (?:that|this|it)\b[.!]*$", re.I)
_PRONOUN = re.compile(r"\b(?:it|that|this|them)\b", re.I)
_VOCATIVE = re.compile(
    r"@?([\w.\-]+)\s*(?:[,:]|\s+(?:can|could|would|will|do|did|are|is|have|want|wanna|pls|please|just)\b)",
    re.I,
)


@dataclass
class _Item:
    """A draft under construction plus the bookkeeping the later messages need."""

    draft: InsightDraft
    index: int  # position of the anchor message
    source: str  # the sentence it came from
    requested: bool = False  # a request to someone (can be accepted) rather than a commitment
    accepted: bool = False
    addressees: tuple[str, ...] = ()
    answers: list[str] = field(default_factory=list)
    task: str = ""  # an action item's task text, without the owner


class RuleExtractor:
    """`known_names` (the user's identities) count as participants even before they speak.

    It is re-read on every `extract`, so a live view (the names the user gave) stays current.
    """

    name = "rules"

    def __init__(self, *, tz: tzinfo = UTC, known_names: Iterable[str] = ()) -> None:
        self._tz = tz
        self._known = known_names

    def extract(self, messages: Sequence[ChatMessage]) -> list[InsightDraft]:
        ordered = sorted(messages, key=lambda m: (m.timestamp, m.message_id))
        return _Run(ordered, self._tz, tuple(self._known)).run()


class _Run:
    def __init__(self, messages: list[ChatMessage], tz: tzinfo, known: tuple[str, ...]) -> None:
        self.msgs = messages
        self.tz = tz
        self.names = {n.casefold(): n for n in known} | {m.person.casefold(): m.person for m in messages}
        # "Ben" in "Ben to write the PRD" is "Ben Ortiz" of the e-mail thread: first names count too.
        self.first_names = {n.split()[0].casefold() for n in self.names.values() if " " in n.strip()}
        self.items: list[_Item] = []
        self.two_person = len({m.person.casefold() for m in messages}) == 2
        self._known = known

    def run(self) -> list[InsightDraft]:
        for i, msg in enumerate(self.msgs):
            self._message(i, msg)
        self._close_questions()
        return [item.draft for item in self.items]

    # -- one message ---------------------------------------------------------------------------
    def _message(self, i: int, msg: ChatMessage) -> None:
        text = p.normalize(msg.content)
        if not text:
            return
        if p.BOT_AUTHOR.search(msg.person):
            # Alerting bots only speak about incidents; their chatter is never a task or decision.
            self._add(InsightKind.BLOCKER, i, text, text)
            return
        if p.SARCASM.search(text):
            return
        merged = self._follow_ups(i, msg, text)
        kinds: set[InsightKind] = set()
        action_n = 0
        question_parts: list[str] = []
        for s in _clauses(text):
            stated = p.strip_tag_question(s)
            if self._action(i, msg, s, action_n, merged):
                action_n += 1
                kinds.add(InsightKind.ACTION_ITEM)
                continue
            decided = InsightKind.DECISION not in kinds and self._is_decision(stated)
            if decided:
                # "we agreed the launch is on May 12": one decision with its date, not a second deadline.
                self._add(InsightKind.DECISION, i, s, text, due_at=self._due(s, msg))
                kinds.add(InsightKind.DECISION)
            if (
                not decided and InsightKind.DEADLINE not in kinds and p.DEADLINE.search(s)
                and (due := self._due(s, msg)) is not None and due >= msg.timestamp - PAST_SLACK_MS
            ):  # fmt: skip
                self._add(InsightKind.DEADLINE, i, s, text, due_at=due)
                kinds.add(InsightKind.DEADLINE)
            if (
                InsightKind.BLOCKER not in kinds and not p.PAST_TROUBLE.search(s)
                and (p.REGRESSION.search(s) or (p.BLOCKER.search(s) and not p.RECOVERED.search(s)))
            ):  # fmt: skip
                self._add(InsightKind.BLOCKER, i, s, text)
                kinds.add(InsightKind.BLOCKER)
            if self._is_open_question(s, stated):
                question_parts.append(s)
        if p.MEETING.search(p.MEETING_AS_VERB.sub(" ", text)):
            self._meeting(i, msg, text)
        if question_parts and InsightKind.ACTION_ITEM not in kinds:
            q = " ".join(question_parts)
            addressees = self._addressees(question_parts[0], text)
            if not addressees and _YOU.search(q) and (prev := self._previous_speaker(i)):
                addressees = (prev,)
            mine = {k.casefold() for k in self._known}
            if (
                not addressees
                and msg.platform == "email"
                and self._known
                and msg.person.casefold() not in mine
            ):
                addressees = (self._known[0],)  # a question in the user's mailbox waits on the user
            self._add(InsightKind.QUESTION, i, q, text, addressed_to=addressees)

    def _is_decision(self, stated: str) -> bool:
        lead = p.VOCATIVE_LEAD.sub("", stated)
        said = bool(p.DECISION.search(stated) or p.IT_IS.match(lead))
        return (
            said
            and not _AGREEMENT.search(lead)
            and not stated.endswith("?")
            and not p.NOT_DECIDED.match(lead)
            and not p.UNDECIDED.search(stated)
        )

    def _is_open_question(self, s: str, stated: str) -> bool:
        if not p.is_question(stated) or p.RHETORICAL.search(s) or p.SMALL_TALK.search(s):
            return False
        return len(p.words(s)) >= 3

    # -- action items ----------------------------------------------------------------------------
    def _action(self, i: int, msg: ChatMessage, s: str, n: int, merged: bool) -> bool:
        low = s.lower()
        todo = p.TODO.match(s)
        addressees = self._addressees(s, p.normalize(msg.content))
        lead_mention = p.MENTION.match(p.VOCATIVE_LEAD.sub("", s))
        after_mention = s[lead_mention.end() :].lstrip(" ,:") if lead_mention else ""
        is_request = (
            (p.REQUEST.search(s) and not p.ASK_NOT_TASK.search(s) and len(p.words(s)) >= 4)
            or (lead_mention and p.IMPERATIVE.match(after_mention))
            or (addressees and p.ADDRESSED_REQUEST.search(s) and s.rstrip().endswith("?"))
        )
        team_promise = bool(p.TEAM_COMMITMENT.search(s)) and self._due(s, msg) is not None
        is_commitment = (
            (team_promise and not self._is_decision(p.strip_tag_question(s)))
            or (p.COMMITMENT.search(s) and not p.is_question(s))
            or p.ON_IT.match(s)
            or p.DROPPED_SUBJECT.match(s)
        ) and not p.NOT_COMMITMENT.search(s)
        owner: str | None
        lead = p.VOCATIVE_LEAD.sub("", s)
        named = p.NAMED_TASK.match(lead) or p.NAMED_WILL.match(lead)
        if named and self._names_a_person(named.group(1)):
            owner = self._canonical(named.group(1).lstrip("@"))
            requested = owner.casefold() != msg.person.casefold()
            self._add_action(i, msg, lead[named.start(2) :], n, owner=owner, requested=requested)
            return True
        if todo:
            who = (todo.group(1) or "me").lstrip("@")
            owner = msg.person if who.casefold() == "me" else self._canonical(who)
            self._add_action(i, msg, s, n, owner=owner, requested=owner != msg.person)
            return True
        if is_request:
            if addressees:
                owner = addressees[0]
            elif p.EVERYONE.search(low):
                owner = None
            else:
                owner = self._previous_speaker(i) or self._other_person(msg)
            if owner is not None and self._merge_commitment(i, msg, s, owner):
                return True
            self._add_action(i, msg, s, n, owner=owner, requested=True, addressees=addressees)
            return True
        if is_commitment:
            if merged:
                return True  # this message accepted an earlier request: no second item
            subject = s
            if len(p.content_words(p.ACK_WORDS.sub(" ", s))) <= 1:
                if len(p.content_words(p.ACK_WORDS.sub(" ", p.normalize(msg.content)))) > 1:
                    return True  # "I'm on it — I'll have a fix by noon": the other sentence is the task
                # "on it" / "not yet, will do tomorrow" alone: the task is what was just asked.
                asked = self._asked_before(i, msg)
                if asked is None:
                    return True  # an acknowledgement of nothing in particular makes no task
                subject = asked
            self._add_action(i, msg, subject, n, owner=msg.person, requested=False)
            return True
        return False

    def _add_action(
        self, i: int, msg: ChatMessage, s: str, n: int, *, owner: str | None, requested: bool,
        addressees: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        due = self._due(s, msg)
        task = labels.shorten(labels.task_text(s), 80)
        title = f"{owner}: {task}" if owner else task[:1].upper() + task[1:]
        event = f"requested by {msg.person}" if requested else f"{msg.person} committed"
        item = self._add(
            InsightKind.ACTION_ITEM, i, s, p.normalize(msg.content), due_at=due, owner=owner,
            addressed_to=addressees, title=title, suffix=str(n), event=event,
        )  # fmt: skip
        item.requested = requested
        item.task = task

    def _merge_commitment(self, i: int, msg: ChatMessage, s: str, owner: str) -> bool:
        """ "I can write the quotes" then "@max send it to me by Friday": one task, now with a date."""
        if not _PRONOUN.search(s):
            return False
        for item in reversed(self.items):
            d = item.draft
            if (
                d.kind is InsightKind.ACTION_ITEM and not item.requested and d.owner
                and d.owner.casefold() == owner.casefold()
                and d.occurred_at >= msg.timestamp - ACCEPT_WINDOW_MS
            ):  # fmt: skip
                due = d.due_at or self._due(s, msg)
                self._update(item, msg, f"requested by {msg.person}", due_at=due)
                return True
        return False

    # -- messages that change earlier items -------------------------------------------------------
    def _follow_ups(self, i: int, msg: ChatMessage, text: str) -> bool:
        """Acceptances, completions, answers and recoveries; True when the message accepted a request."""
        accepted = self._accept(i, msg, text)
        who = msg.person.casefold()
        answered = False
        for item in reversed(self.items):
            d = item.draft
            age = msg.timestamp - d.occurred_at
            if d.kind is InsightKind.ACTION_ITEM and d.status is InsightStatus.OPEN:
                owner = d.owner.casefold() if d.owner else None
                if (owner == who or owner is None) and age <= DONE_WINDOW_MS and self._is_done(text, item):
                    self._update(item, msg, f"done: {labels.shorten(text, 60)}", owner=d.owner or msg.person,
                                 status=InsightStatus.RESOLVED)  # fmt: skip
            elif (
                d.kind is InsightKind.BLOCKER and d.status is InsightStatus.OPEN and age <= RECOVERY_WINDOW_MS
            ):
                if p.RECOVERED.search(text) and self._about(text, item, latest_blocker=True):
                    self._update(item, msg, f"recovered: {labels.shorten(text, 60)}",
                                 status=InsightStatus.RESOLVED)  # fmt: skip
            elif (
                d.kind is InsightKind.QUESTION and age <= ANSWER_WINDOW_MS and not item.answers
                and not accepted and not answered and self._answers(i, msg, text, item)
            ):  # fmt: skip
                answered = True  # one reply answers one question: the newest it fits
                item.answers.append(msg.message_id)
                self._update(item, msg, f"answered by {msg.person}", status=InsightStatus.RESOLVED)
        return accepted

    def _accept(self, i: int, msg: ChatMessage, text: str) -> bool:
        """ "yep" / "I'll call him in the morning" right after a request makes it the speaker's task."""
        who = msg.person.casefold()
        committing = bool(p.COMMITMENT.search(text) or p.ON_IT.match(text) or p.DROPPED_SUBJECT.match(text))
        for item in reversed(self.items):
            d = item.draft
            if d.kind is not InsightKind.ACTION_ITEM or not item.requested or item.accepted:
                continue
            owner = d.owner.casefold() if d.owner else None
            if (
                msg.timestamp - d.occurred_at <= ACCEPT_WINDOW_MS and d.status is InsightStatus.OPEN
                and d.author is not None and who != d.author.casefold()
                and ((owner == who and (p.ACK.match(text) or committing)) or (owner is None and committing))
                and not self._spoke_between(item.index, i, msg.person)
            ):  # fmt: skip
                item.accepted = True
                # The owner's own date is the promise that counts ("sure, by end of day").
                due = self._due(text, msg) or d.due_at
                self._update(item, msg, f"accepted by {msg.person}", owner=msg.person, due_at=due)
                return True
        return False

    def _is_done(self, text: str, item: _Item) -> bool:
        if not p.DONE.search(text) or p.is_question(text):
            return False
        first = p.words(text)[:1]
        return bool(first and p.DONE.match(first[0])) or self._about(text, item)

    def _about(self, text: str, item: _Item, latest_blocker: bool = False) -> bool:
        if p.content_words(text) & p.content_words(item.source):
            return True
        if latest_blocker:
            # "checkout recovered" resolves the newest open incident even when worded differently.
            open_blockers = [
                it for it in self.items
                if it.draft.kind is InsightKind.BLOCKER and it.draft.status is InsightStatus.OPEN
            ]  # fmt: skip
            return bool(open_blockers) and open_blockers[-1] is item
        return False

    def _answers(self, i: int, msg: ChatMessage, text: str, item: _Item) -> bool:
        d = item.draft
        if d.author is not None and msg.person.casefold() == d.author.casefold():
            return False
        # A bare "yes" / "4.2.0" only answers what was just asked, not a question from hours ago.
        adjacent = i - item.index <= ADJACENT_MESSAGES and msg.timestamp - item.draft.occurred_at <= HOUR_MS
        shared = len(p.content_words(text) & p.content_words(item.source))
        if item.addressees:
            # A question put to someone is answered only by them, and only when they reply to it.
            if msg.person.casefold() not in {a.casefold() for a in item.addressees}:
                return False
            return adjacent or shared >= 1
        if p.JOKE_START.match(text) or (p.is_question(text) and not p.ANSWER_START.match(text)):
            return False
        if i == item.index + 1 and self.two_person and msg.timestamp - item.draft.occurred_at <= HOUR_MS:
            return True  # in a one-to-one chat the other person's next message is the reply
        # One shared word is coincidence unless the reply came right away.
        if shared >= 2 or (adjacent and shared >= 1):
            return True
        return adjacent and bool(p.ANSWER_START.match(text))

    def _close_questions(self) -> None:
        for item in self.items:
            if item.draft.kind is InsightKind.QUESTION and not item.answers:
                item.draft = item.draft.with_changes(details=(*item.draft.details, "awaiting an answer"))

    # -- meetings -------------------------------------------------------------------------------------
    def _meeting(self, i: int, msg: ChatMessage, text: str) -> None:
        found = find_dates(text, self._ref(msg))
        if not found:
            return
        cue = p.MEETING.search(text)
        pos = cue.start() if cue else 0
        when = min(found, key=lambda d: abs(d.start - pos))
        at = int(when.at.timestamp() * 1000)
        if at < msg.timestamp - PAST_SLACK_MS:
            return  # "last Friday's workshop" tells a story; it schedules nothing
        for item in self.items:
            if item.draft.kind is InsightKind.MEETING and item.draft.due_at == at:
                self._update(item, msg, f"mentioned by {msg.person}")
                return
        self._add(InsightKind.MEETING, i, text, text, due_at=at)

    # -- helpers ----------------------------------------------------------------------------------
    def _add(
        self, kind: InsightKind, i: int, sentence: str, text: str, *, due_at: int | None = None,
        owner: str | None = None, addressed_to: tuple[str, ...] = (), title: str | None = None,
        suffix: str = "0", event: str | None = None,
    ) -> _Item:  # fmt: skip
        msg = self.msgs[i]
        basis = f"{sentence} {text}"
        asked = "asked of" if kind is InsightKind.QUESTION else "addressed to"
        pairs = (
            ("owner", owner),
            (asked, ", ".join(addressed_to)),
            ("due", iso(due_at)),
            ("from", msg.person),
        )
        details = [f"{label}: {value}" for label, value in pairs if value]
        draft = InsightDraft(
            kind=kind,
            title=title or labels.title_for(kind, sentence),
            description=f"{msg.person} in {msg.channel or 'a chat'} ({msg.platform or 'chat'}): {text}",
            importance=labels.importance_for(kind, basis, bool(addressed_to)),
            urgency=labels.urgency_for(kind, basis, due_at, msg.timestamp),
            task_label=labels.task_label_for(kind, basis),
            dedupe_key=f"{msg.platform}:{msg.channel}:{kind.value}:{msg.message_id}:{suffix}",
            evidence=(msg.message_id,),
            occurred_at=msg.timestamp,
            platform=msg.platform,
            channel=msg.channel,
            author=msg.person,
            owner=owner,
            due_at=due_at,
            addressed_to=addressed_to,
            details=tuple(details),
            timeline=(TimelineEvent(msg.timestamp, event or f"said by {msg.person}", msg.message_id),),
        )
        item = _Item(draft=draft, index=i, source=sentence, addressees=addressed_to)
        self.items.append(item)
        return item

    def _update(self, item: _Item, msg: ChatMessage, event: str, **changes: object) -> None:
        d = item.draft
        evidence = d.evidence if msg.message_id in d.evidence else (*d.evidence, msg.message_id)
        timeline = (*d.timeline, TimelineEvent(msg.timestamp, event, msg.message_id))
        new = d.with_changes(evidence=evidence, timeline=timeline, **changes)
        if "owner" in changes and changes["owner"] and d.kind is InsightKind.ACTION_ITEM:
            task = item.task or new.title.split(": ", 1)[-1]
            owner = str(changes["owner"])
            new = new.with_changes(title=f"{owner}: {task}", details=_set_detail(new.details, "owner", owner))
        if "due_at" in changes and changes["due_at"] != d.due_at and changes["due_at"] is not None:
            due = changes["due_at"]
            assert isinstance(due, int)
            new = new.with_changes(
                urgency=labels.urgency_for(d.kind, item.source, due, d.occurred_at),
                details=_set_detail(new.details, "due", iso(due) or ""),
            )
        item.draft = new

    def _addressees(self, sentence: str, text: str) -> tuple[str, ...]:
        found = [self._canonical(m) for m in p.MENTION.findall(sentence)]
        for candidate in (sentence, text):
            voc = _VOCATIVE.match(p.VOCATIVE_LEAD.sub("", candidate.strip()))
            if voc and voc.group(1).casefold() in self.names:
                found.append(self.names[voc.group(1).casefold()])
        if not found:
            found = [self._canonical(m) for m in p.MENTION.findall(text)]
        return tuple(dict.fromkeys(found))

    def _canonical(self, name: str) -> str:
        name = name.rstrip(".,:")
        return self.names.get(name.casefold(), name)

    def _previous_speaker(self, i: int) -> str | None:
        me = self.msgs[i]
        for j in range(i - 1, -1, -1):
            other = self.msgs[j]
            if me.timestamp - other.timestamp > HOUR_MS:
                return None
            if other.person != me.person and not p.BOT_AUTHOR.search(other.person):
                return other.person
        return None

    def _names_a_person(self, word: str) -> bool:
        """ "Ben" in "Ben to write the PRD" names someone; "Started" in "Started to learn…" does not."""
        # Only people of this conversation (or the user's names): a capitalised "Awesome to hear from
        # you" or "Love to hear more" names nobody.
        return word.startswith("@") or word.casefold() in self.names or word.casefold() in self.first_names

    def _other_person(self, msg: ChatMessage) -> str | None:
        """In a one-to-one chat (or the user's mailbox) a request goes to the other person."""
        people = {m.person for m in self.msgs}
        if self.two_person:
            return next(iter(people - {msg.person}), None)
        mine = {k.casefold() for k in self._known}
        if msg.platform == "email" and mine and msg.person.casefold() not in mine:
            return self._known[0]
        return None

    def _asked_before(self, i: int, msg: ChatMessage) -> str | None:
        """The request or question another person put just before "will do", as the task it accepts."""
        for j in range(i - 1, max(-1, i - 4), -1):
            other = self.msgs[j]
            if msg.timestamp - other.timestamp > ACCEPT_WINDOW_MS:
                return None
            if other.person == msg.person:
                continue
            said = p.normalize(other.content)
            if p.ACK.match(said) or len(p.content_words(said)) < 2:
                return None  # "will do" after "👍" or "ok": nothing to take on
            return said
        return None

    def _spoke_between(self, start: int, end: int, person: str) -> bool:
        return any(m.person == person for m in self.msgs[start + 1 : end])

    def _ref(self, msg: ChatMessage) -> datetime:
        return datetime.fromtimestamp(msg.timestamp / 1000, tz=self.tz)

    def _due(self, text: str, msg: ChatMessage) -> int | None:
        found = pick_due(text, self._ref(msg))
        return int(found.at.timestamp() * 1000) if found else None


def _set_detail(details: tuple[str, ...], label: str, value: str) -> tuple[str, ...]:
    return (*(x for x in details if not x.startswith(f"{label}:")), f"{label}: {value}")


def _clauses(text: str) -> list[str]:
    """Sentences, with "Ben to update the page, Carla to draft the mail" split into its two tasks."""
    out: list[str] = []
    for s in p.sentences(text):
        out.extend(p.NAMED_SPLIT.split(s) if p.NAMED_TASK.match(p.VOCATIVE_LEAD.sub("", s)) else [s])
    return out
