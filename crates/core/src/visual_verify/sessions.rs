//! visual_verify's session rules: a session keeps a page's challenges with their withheld
//! answers for a TTL ([`SESSION_TTL`] unless the server says otherwise), at most [`MAX_SESSIONS`]
//! of them; a page's own questions take [`MAX_ATTEMPTS`] responses in all its sessions, counted
//! until a TTL after the last; and while a session is open its site is locked: the other live
//! tools do not open pages of it, so the looking model's answers come from its screenshot alone.
//! The MCP server holds one [`Sessions`] and renders what it answers.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{Challenge, VerifyVerdict, judge_response};

/// Verification sessions kept; the oldest goes first.
pub const MAX_SESSIONS: usize = 100;
/// How long a verification session lives unless the server sets another TTL.
pub const SESSION_TTL: Duration = Duration::from_secs(5 * 60);
/// Responses the same questions accept, so answers cannot be found by trying them all. A page
/// asks the same questions in every session, so the count is kept per page (its own questions),
/// not per session: a new session would otherwise bring three more tries at the same answers.
pub const MAX_ATTEMPTS: u32 = 3;

/// One visual_verify session: the challenges with their withheld answers.
#[derive(Debug, Clone)]
pub struct Session {
    created: Instant,
    url: String,
    /// The page's site ([`site_of`]): while the session is open, the other live tools do not
    /// open pages of it.
    site: String,
    /// A response was trusted: the looking model's work is done.
    trusted: bool,
    query: String,
    challenges: Vec<Challenge>,
    /// The page's own questions, one a line: what the response count is kept by. The caller's
    /// criteria are left out: changing them must not buy more tries.
    questions: String,
}

impl Session {
    /// A session opened now on `url`, asking `challenges` for `query`.
    pub fn new(url: &str, query: &str, challenges: Vec<Challenge>) -> Self {
        let questions: Vec<&str> = challenges.iter().filter(|c| !c.by_caller).map(|c| c.question.as_str()).collect();
        Session {
            created: Instant::now(),
            url: url.to_string(),
            site: site_of(url),
            trusted: false,
            query: query.to_string(),
            questions: questions.join("\n"),
            challenges,
        }
    }

    /// The page the session verifies.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What the looking model is to answer about the page.
    pub fn query(&self) -> &str {
        &self.query
    }
}

/// The responses one page's questions took, and when the last came.
#[derive(Debug, Clone)]
struct Responses {
    count: u32,
    last: Instant,
}

/// The open sessions and the responses each page's questions took.
#[derive(Debug)]
pub struct Sessions {
    ttl: Duration,
    kept: HashMap<String, Session>,
    /// By the page's own questions; forgotten a TTL after the last response.
    responses: HashMap<String, Responses>,
}

/// A response judged: the session it answered, the verdict, and the responses its questions
/// have left.
#[derive(Debug)]
pub struct Judged<'a> {
    /// The session answered.
    pub session: &'a Session,
    /// The verdict on the answers.
    pub verdict: VerifyVerdict,
    /// Responses the session's questions still take.
    pub attempts_left: u32,
}

/// Why a response was not judged.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// No session by that id: it expired, made way for newer ones or never existed.
    Unknown { id: String, ttl: Duration },
    /// Its questions took their [`MAX_ATTEMPTS`] responses within the TTL.
    Spent { id: String, ttl: Duration },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unknown { id, ttl } => write!(
                f,
                "no verification session {id:?}: it expired (sessions last {} s), made way for newer ones (at most \
                 {MAX_SESSIONS} are kept) or never existed; call visual_verify again",
                ttl.as_secs_f64()
            ),
            Refusal::Spent { id, ttl } => write!(
                f,
                "session {id}: its questions already took {MAX_ATTEMPTS} responses (every session of this page asks \
                 the same ones, so they share the {MAX_ATTEMPTS}); they take responses again {} s after the last \
                 one, or verify another part of the page with `selector`",
                ttl.as_secs_f64()
            ),
        }
    }
}

/// A site held by an open session: the other live tools refuse its pages with this sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteLock {
    /// The site as [`site_of`] names it.
    pub site: String,
    /// Seconds until the longest open session on it expires, at least 1.
    pub seconds_left: u64,
}

impl std::fmt::Display for SiteLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a visual_verify session on this site ({}) is open: until a response to it is trusted, its questions \
             have taken their {MAX_ATTEMPTS} responses, or it expires in {} s, the live tools do not open its pages, \
             so the looking model's answers come from its screenshot alone. Submit the response first \
             (submit_visual_response)",
            self.site, self.seconds_left
        )
    }
}

impl Sessions {
    /// No sessions yet; each lives `ttl`.
    pub fn new(ttl: Duration) -> Self {
        Sessions { ttl, kept: HashMap::new(), responses: HashMap::new() }
    }

    /// How long a session lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Keeps `session` under a new id nobody can guess, the oldest session making way when
    /// [`MAX_SESSIONS`] are kept.
    pub fn open(&mut self, session: Session) -> String {
        self.expire();
        while self.kept.len() >= MAX_SESSIONS {
            let oldest = self.kept.iter().min_by_key(|(_, s)| s.created).map(|(id, _)| id.clone());
            let Some(oldest) = oldest else { break };
            self.kept.remove(&oldest);
        }
        let id = session_id();
        self.kept.insert(id.clone(), session);
        id
    }

    /// The lock on `url`'s site, if a session there is open: until it expires, a response to it
    /// is trusted, or its questions took their responses.
    pub fn lock_on(&mut self, url: &str) -> Option<SiteLock> {
        self.expire();
        let site = site_of(url);
        let exhausted = |s: &Session| self.responses.get(&s.questions).is_some_and(|r| r.count >= MAX_ATTEMPTS);
        let seconds_left = self
            .kept
            .values()
            .filter(|s| s.site == site && !s.trusted && !exhausted(s))
            .map(|s| self.ttl.saturating_sub(s.created.elapsed()).as_secs().max(1))
            .max()?;
        Some(SiteLock { site, seconds_left })
    }

    /// Judges a response to session `id`: counts it against the session's questions, checks the
    /// answers, and frees the site when they are trusted. An unknown or expired session, or
    /// questions that took [`MAX_ATTEMPTS`] responses in any sessions within the TTL, is refused.
    pub fn respond(&mut self, id: &str, answers: &Map<String, Value>) -> Result<Judged<'_>, Refusal> {
        self.expire();
        let ttl = self.ttl;
        let Some(session) = self.kept.get_mut(id) else {
            return Err(Refusal::Unknown { id: id.to_string(), ttl });
        };
        let taken =
            self.responses.entry(session.questions.clone()).or_insert(Responses { count: 0, last: Instant::now() });
        if taken.count >= MAX_ATTEMPTS {
            return Err(Refusal::Spent { id: id.to_string(), ttl });
        }
        taken.count += 1;
        taken.last = Instant::now();
        let attempts_left = MAX_ATTEMPTS - taken.count;
        let verdict = judge_response(&session.challenges, answers);
        // The looking model's work is done: the site is free for the other tools again.
        session.trusted |= verdict.trusted;
        Ok(Judged { session, verdict, attempts_left })
    }

    fn expire(&mut self) {
        let ttl = self.ttl;
        self.kept.retain(|_, s| s.created.elapsed() < ttl);
        self.responses.retain(|_, r| r.last.elapsed() < ttl);
    }
}

/// The site of a page, as a verification keeps other tools away from it: scheme, host and port
/// as the browser normalises them (`HTTP://LocalHost:80/` is `http://localhost`), the loopback
/// names (`localhost`, 127.0.0.0/8, `::1`) as one host, and every `file://` page as one site.
pub fn site_of(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else { return url.to_string() };
    if parsed.scheme() == "file" {
        return "file://".to_string();
    }
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let host = if loopback { "loopback".to_string() } else { parsed.host_str().unwrap_or("").to_string() };
    match parsed.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
        None => format!("{}://{host}", parsed.scheme()),
    }
}

/// An id nobody can guess: 128 bits from the standard library's per-process random hash keys,
/// mixed with the time.
fn session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut halves = [0u64; 2];
    for half in &mut halves {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        *half = h.finish();
    }
    format!("verify-{:016x}{:016x}", halves[0], halves[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visual_verify::Expected;

    /// A session of `url` asking `questions` (one page challenge each line), made now.
    fn session(url: &str, questions: &str) -> Session {
        let challenges = questions
            .lines()
            .enumerate()
            .map(|(n, q)| Challenge::new(n + 1, q.to_string(), Some(Expected::Text("Spring collection".into()))))
            .collect();
        Session::new(url, "q", challenges)
    }

    /// No sessions yet, living a minute.
    fn sessions() -> Sessions {
        Sessions::new(Duration::from_secs(60))
    }

    /// The answer to every challenge of [`session`], right or wrong.
    fn answered(right: bool) -> Map<String, Value> {
        let text = if right { "Spring collection" } else { "Autumn sale" };
        (1..=3).map(|n| (format!("c{n}"), Value::from(text))).collect()
    }

    /// The attempts a response to `id` leaves, or the refusal's sentence.
    fn left(sessions: &mut Sessions, id: &str) -> Result<u32, String> {
        sessions.respond(id, &answered(false)).map(|judged| judged.attempts_left).map_err(|e| e.to_string())
    }

    #[test]
    fn verify_sessions_expire_and_are_bounded() {
        let session = || session("http://example.com/", "q");
        let mut sessions = sessions();
        let first = sessions.open(session());
        assert_ne!(first, sessions.open(session()), "ids differ");
        assert!(first.starts_with("verify-") && first.len() == "verify-".len() + 32, "{first}");
        // Age the sessions by moving their creation back instead of sleeping past the TTL: one
        // just inside it stays, one just past it goes.
        let now = Instant::now();
        let second = sessions.kept.keys().find(|id| **id != first).cloned().unwrap();
        sessions.kept.get_mut(&first).unwrap().created = now - Duration::from_secs(61);
        sessions.kept.get_mut(&second).unwrap().created = now - Duration::from_secs(59);
        sessions.expire();
        assert_eq!(sessions.kept.keys().cloned().collect::<Vec<_>>(), vec![second]);
        sessions.kept.clear();
        for _ in 0..MAX_SESSIONS + 5 {
            sessions.open(session());
        }
        assert_eq!(sessions.kept.len(), MAX_SESSIONS);
    }

    #[test]
    fn verify_a_site_is_one_site_by_every_name_of_it() {
        for same in [
            "http://localhost:4173/a",
            "HTTP://127.0.0.1:4173/b?x#y",
            "http://user@[::1]:4173/",
            "http://127.1.2.3:4173",
        ] {
            assert_eq!(site_of(same), "http://loopback:4173", "{same}");
        }
        assert_eq!(site_of("https://Docs.Example.com/x"), "https://docs.example.com:443");
        assert_eq!(site_of("http://docs.example.com:80/"), "http://docs.example.com:80");
        assert_eq!(site_of("file:///srv/a/index.html"), "file://");
        assert_ne!(site_of("http://localhost:4173/"), site_of("http://localhost:4174/"));
    }

    #[test]
    fn verify_a_session_locks_its_site_until_trusted_or_spent() {
        let mut sessions = sessions();
        let shop = sessions.open(session("http://localhost:4173/", "What does the largest heading say?"));
        let docs = sessions.open(session("https://docs.example.com/", "What does the first link say?"));
        let lock = sessions.lock_on("http://127.0.0.1:4173/other?page").unwrap();
        assert_eq!(lock.site, "http://loopback:4173");
        assert!((59..=60).contains(&lock.seconds_left), "{lock:?}");
        assert_eq!(
            lock.to_string(),
            format!(
                "a visual_verify session on this site (http://loopback:4173) is open: until a response to it is \
                 trusted, its questions have taken their 3 responses, or it expires in {} s, the live tools do not \
                 open its pages, so the looking model's answers come from its screenshot alone. Submit the response \
                 first (submit_visual_response)",
                lock.seconds_left
            )
        );
        assert_eq!(sessions.lock_on("http://localhost:4174/"), None, "another port is another site");
        // A wrong response keeps the lock; a trusted one frees the site.
        sessions.respond(&shop, &answered(false)).unwrap();
        assert!(sessions.lock_on("http://localhost:4173/").is_some(), "not trusted: still open");
        let judged = sessions.respond(&shop, &answered(true)).unwrap();
        assert!(judged.verdict.trusted, "{:?}", judged.verdict);
        assert_eq!(
            (judged.session.url(), judged.session.query(), judged.attempts_left),
            ("http://localhost:4173/", "q", 1)
        );
        assert_eq!(sessions.lock_on("http://localhost:4173/"), None, "trusted: done");
        for _ in 0..MAX_ATTEMPTS {
            sessions.respond(&docs, &answered(false)).unwrap();
        }
        assert_eq!(sessions.lock_on("https://docs.example.com/"), None, "its responses spent");
    }

    #[test]
    fn verify_a_page_takes_three_responses_however_many_sessions_ask() {
        let session = |questions: &str| session("http://example.com/", questions);
        let mut sessions = sessions();
        let first = sessions.open(session("What does the largest heading say?"));
        let again = sessions.open(session("What does the largest heading say?"));
        let other = sessions.open(session("What does the first link from the top say?"));
        assert_eq!(left(&mut sessions, &first), Ok(2));
        assert_eq!(left(&mut sessions, &first), Ok(1));
        // A new session of the same page asks the same questions: it gets the one try left.
        assert_eq!(left(&mut sessions, &again), Ok(0));
        let refusal = |id: &str| {
            format!(
                "session {id}: its questions already took 3 responses (every session of this page asks the same ones, so \
                 they share the 3); they take responses again 60 s after the last one, or verify another part of the \
                 page with `selector`"
            )
        };
        assert_eq!(left(&mut sessions, &again), Err(refusal(&again)));
        assert_eq!(left(&mut sessions, &first), Err(refusal(&first)));
        // Other questions (another page, or another part of it) have their own three.
        assert_eq!(left(&mut sessions, &other), Ok(2));
        // A TTL after the last response the page's questions are answered afresh (in a session
        // made since; the old ones are gone by then).
        for r in sessions.responses.values_mut() {
            r.last -= Duration::from_secs(61);
        }
        let later = sessions.open(session("What does the largest heading say?"));
        assert_eq!(left(&mut sessions, &later), Ok(2));
        assert_eq!(
            left(&mut sessions, "verify-0"),
            Err("no verification session \"verify-0\": it expired (sessions last 60 s), made way for newer ones (at \
                 most 100 are kept) or never existed; call visual_verify again"
                .into())
        );
    }

    #[test]
    fn verify_the_callers_criteria_buy_no_more_tries() {
        let mut sessions = sessions();
        let with_criterion = |question: &str| {
            let mut challenges = vec![Challenge::new(1, "What does the largest heading say?".into(), None)];
            let mut criterion = Challenge::new(2, question.into(), Some(Expected::Boolean(true)));
            criterion.by_caller = true;
            challenges.push(criterion);
            Session::new("http://example.com/", "q", challenges)
        };
        let first = sessions.open(with_criterion("Is the banner red?"));
        let reworded = sessions.open(with_criterion("Is the banner crimson?"));
        assert_eq!(left(&mut sessions, &first), Ok(2));
        assert_eq!(left(&mut sessions, &reworded), Ok(1), "the page's own questions are the same");
    }
}
