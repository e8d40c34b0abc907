// visual_verify end to end: the built `sightline mcp` with its browser worker against the scenario
// site (tests/live/pages.mjs): it withholds its answers, rejects wrong ones, trusts right ones,
// takes three responses at most, locks the site while a session is open, and expires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { sightedAnswers } from './support/sighted.mjs';
import { liveSuite, skip } from './support/live.mjs';

const { call, failure, withServer, url, site } = liveSuite();

test('live: visual_verify withholds its answers, rejects wrong ones, accepts right ones, three times at most', { skip }, async () => {
  const session = await call('visual_verify', {
    url: url('/clean'),
    query: 'Is there a way to buy?',
    criteria: [{ question: 'How many entries does the bulleted list have?', expected: 3 }],
  });
  assert.match(session.sessionId, /^verify-[0-9a-f]{32}$/);
  assert.equal(session.expiresInSeconds, 300);
  assert.ok(existsSync(session.screenshot));
  const shown = JSON.stringify(session);
  for (const secret of ['Spring collection', 'Welcome', 'Light jackets', 'See everything', '#1a4d8f', '26, 77, 143', site().origin]) {
    assert.ok(!shown.includes(secret), `${secret} leaked`);
  }
  // Built from what the clean page's screenshot shows, in an order mixed by the page's text; the
  // caller's criterion last. "Buy now" sits beside "Sold out", so no "first button" is asked.
  const byQuestion = Object.fromEntries(session.challenges.map((c) => [c.question, c.format]));
  assert.deepEqual(byQuestion, {
    'What does the largest heading say?': 'text',
    'What does the second heading from the top say?': 'text',
    'What are the first five words of the first paragraph of body text from the top?': 'text',
    'What does the first link from the top say?': 'text',
    'How many bulleted or numbered entries does the screenshot show?': 'number',
    'How many images does the screenshot show?': 'number',
    // "Sold out", a shop's label the page shows, and two shop labels it lacks.
    'Is there a button labelled "Sold out"?': 'yes or no',
    'Is there a button labelled "Shop now"?': 'yes or no',
    'Is there a button labelled "Wishlist"?': 'yes or no',
    'What is the background colour of the first coloured (not white, grey or black) button from the top?': 'colour as #rrggbb',
    'Where in the screenshot is the text "Shoes" (top/middle/bottom, left/center/right)?': 'region words: top/middle/bottom and left/center/right',
    'How many entries does the bulleted list have?': 'number',
  });
  const challenges = session.challenges;
  assert.deepEqual(challenges.map((c) => c.id), challenges.map((_, i) => `c${i + 1}`));
  assert.equal(challenges[challenges.length - 1].question, 'How many entries does the bulleted list have?');
  // The prompt names no site and says guesses are caught.
  assert.ok(session.prompt.startsWith(`You are an independent checker. Open the image ${session.screenshot} and answer every question ONLY from what you see in it.`), session.prompt);
  assert.ok(session.prompt.includes(`Call submit_visual_response with session_id "${session.sessionId}"`));

  // While the session is open, no live tool opens a page of the site (by any name of it), so the
  // looking model's answers come from the screenshot, not from the page's DOM.
  const locked = await failure('capture_dom_state', { url: url('/clean').replace('127.0.0.1', 'localhost') + '?again' });
  assert.match(locked.toolError, /^a visual_verify session on this site \(http:\/\/loopback:\d+\) is open: until a response to it is trusted, its questions have taken their 3 responses, or it expires in \d+ s, the live tools do not open its pages/);
  assert.match((await failure('measure_element', { url: url('/'), selector: 'h1' })).toolError, /visual_verify session on this site/);
  const right = await sightedAnswers(url('/clean'), { challenges: challenges.slice(0, -1) });
  right[challenges[challenges.length - 1].id] = '3';
  const wrong = Object.fromEntries(challenges.map((c) => [c.id, 'no idea']));
  const rejected = await call('submit_visual_response', { session_id: session.sessionId, challenge_answers: wrong, query_answer: 'yes' });
  // "no idea" is a right "no" to the two labels the page lacks, and nothing else.
  assert.deepEqual([rejected.trusted, rejected.passed, rejected.total, rejected.attemptsLeft], [false, 2, 12, 2]);
  assert.equal(rejected.failed.length, 10);
  const rejectedText = JSON.stringify(rejected);
  for (const secret of ['Spring collection', '#1a4d8f', 'Welcome']) assert.ok(!rejectedText.includes(secret), `${secret} leaked`);
  const accepted = await call('submit_visual_response', { session_id: session.sessionId, challenge_answers: right, query_answer: 'yes, the Buy now button' });
  assert.deepEqual([accepted.trusted, accepted.passed, accepted.total, accepted.failed, accepted.attemptsLeft], [true, 12, 12, [], 1], JSON.stringify(accepted));
  assert.equal(accepted.summary, 'Trusted: 12 of 12 challenges passed. The query answer below comes from a model that looked.');
  assert.equal(accepted.queryAnswer, 'yes, the Buy now button');
  // Trusted: the site is open to the other tools again.
  assert.match((await call('capture_dom_state', { url: url('/clean'), selector: '#list' })).id, /^dom-/);
  // Three responses per page, so the answers cannot be found by trying them all: a new session
  // asks the same questions (the page's, whatever the criteria) and gets no more tries.
  const last = await call('submit_visual_response', { session_id: session.sessionId, challenge_answers: right, query_answer: 'yes' });
  assert.equal(last.attemptsLeft, 0);
  const refusal = (id) =>
    `session ${id}: its questions already took 3 responses (every session of this page asks the same ones, so they share the 3); they take responses again 300 s after the last one, or verify another part of the page with \`selector\``;
  assert.deepEqual(await failure('submit_visual_response', { session_id: session.sessionId, challenge_answers: right, query_answer: 'yes' }), {
    toolError: refusal(session.sessionId),
  });
  const again = await call('visual_verify', { url: url('/clean'), query: 'Is there a way to buy?' });
  assert.deepEqual(again.challenges, challenges.slice(0, -1), 'the same questions');
  assert.deepEqual(await failure('submit_visual_response', { session_id: again.sessionId, challenge_answers: right, query_answer: 'yes' }), {
    toolError: refusal(again.sessionId),
  });
  assert.deepEqual(await failure('visual_verify', { url: url('/clean'), query: ' ' }), {
    toolError: 'query: say what the looking model should answer about the page',
  });
});

test('live: a visual_verify session past its TTL is refused', { skip }, async () => {
  // TTL 0: the session is past it by the next call, so expiry is checked without racing a clock.
  await withServer({ SIGHTLINE_VERIFY_TTL_MS: '0' }, async (own) => {
    const session = await call('visual_verify', { url: url('/clean'), query: 'Is there a way to buy?' }, own);
    assert.equal(session.expiresInSeconds, 0);
    const answers = Object.fromEntries(session.challenges.map((c) => [c.id, 'x']));
    assert.deepEqual(await failure('submit_visual_response', { session_id: session.sessionId, challenge_answers: answers, query_answer: 'yes' }, own), {
      toolError: `no verification session "${session.sessionId}": it expired (sessions last 0 s), made way for newer ones (at most 100 are kept) or never existed; call visual_verify again`,
    });
  });
});
