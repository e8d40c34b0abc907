'use strict';
// The browser worker's logging. stdout is the protocol channel (one JSON answer per line), so
// every log line goes to stderr, prefixed so the supervisor's log says whose line it is.

function log(message) {
  process.stderr.write(`sightline worker: ${message}\n`);
}

module.exports = { log };
