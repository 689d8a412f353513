// Every setting, declared once: its variable, its parser, its default, where it goes in Config and
// the line the operators' table shows (docs/operators.md "Configuration", written from here by
// `npm run docs:settings` and checked by test/config-docs.test.ts). Config's type is derived
// from these; loadConfig (src/config.ts) adds the rules across settings and the values made of several.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { autoOr, blobUrl, bool, bytes, databaseUrl, duration, GiB, int, listen, MiB, origin, prefix, prefixes, smtpUrl, timer } from './parsers.ts';

export interface Setting<T extends z.ZodType = z.ZodType, P extends string = string, V = unknown> {
  /** Makes the value from the variable's string, or says what was expected. */
  readonly parse: T;
  /** The string taken when the variable is unset, parsed like any other; undefined: none. */
  readonly default: string | undefined;
  /** Where the value goes in Config ('limits.chunkMax'); none: only loadConfig's rules read it. */
  readonly at?: P;
  /** What goes there, when not the parsed value itself. */
  readonly to?: (value: z.output<T>) => V;
  /** The default as the operators' table shows it, when not the string itself (or "unset"). */
  readonly shown?: string;
  /** Named in errors, never shown: it may hold a password or a key. */
  readonly secret?: boolean;
  /** The operators' table's description. */
  readonly doc: string;
}

/** Keeps the literal path and the types of `parse` and `to`, from which Config is derived. */
const setting = <T extends z.ZodType, const P extends string = never, V = z.output<T>>(s: Setting<T, P, V>): Setting<T, P, V> => s;

// in this order they are parsed, their problems listed, and the operators' table written
export const SETTINGS = {
  OBSCURA_DATA_DIR: setting({
    parse: z.string().min(1), default: './data', at: 'dataDir', to: (dir) => path.resolve(dir),
    doc: 'rows (SQLite), encrypted blobs, the embedded master key file',
  }),
  // scale-out (docs/operators.md "Many instances"): rows, queue, events and locks in PostgreSQL; blobs in S3
  OBSCURA_DATABASE_URL: setting({
    parse: databaseUrl.optional(), default: undefined, at: 'databaseUrl', secret: true,
    doc: '`postgres://user:password@host:port/db`: rows, the job queue, job events and locks in PostgreSQL, for many instances (see "Many instances"); unset: SQLite in the data folder. Never logged or echoed',
  }),
  OBSCURA_BLOB_URL: setting({
    parse: blobUrl.optional(), default: undefined, at: 'blobUrl', secret: true,
    doc: '`s3://bucket[/prefix]?endpoint=https://host:port&region=…`: the encrypted blobs in an S3-compatible bucket (made at first start if it does not exist), with `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`; unset: files in the data folder. Never logged or echoed',
  }),
  OBSCURA_BLOB_INLINE: setting({
    parse: bytes.refine((n) => n <= 64 * MiB, 'must be at most 64MiB: it is kept in database rows'), default: '128KiB', at: 'blobInline',
    doc: "with `OBSCURA_BLOB_URL`: a blob whose ciphertext stays within this is kept in the database's part index instead of the bucket (a small file then costs the bucket no request); `0`: every data part in the bucket; at most `64MiB`",
  }),
  OBSCURA_BLOB_CACHE: setting({
    parse: bytes.refine((n) => n <= 4 * GiB, 'must be at most 4GiB: it is kept in memory'), default: '32MiB', at: 'blobCache',
    doc: 'with `OBSCURA_BLOB_URL`: part objects (ciphertext) an instance keeps in memory after writing or reading them whole, so that a job on the instance that received its upload does not fetch it back; parts are never rewritten, so nothing in it goes stale; `0`: none',
  }),
  OBSCURA_BLOB_PARTS_IN_FLIGHT: setting({
    parse: int(1, 32), default: '4', at: 'blobPartsInFlight',
    doc: "with `OBSCURA_BLOB_URL`: parts of one upload being written to the bucket at once while the next is encrypted; each holds its 8 MiB of ciphertext in memory (so 32 MiB per upload being received), and a crash loses at most that many parts of a resumable upload's unacknowledged bytes; `1`: one at a time; at most `32`",
  }),
  OBSCURA_JOB_LEASE: setting({
    parse: timer.refine((ms) => ms >= 1000, 'must be at least 1s'), default: '30s', at: 'jobs.leaseMs',
    doc: "how long a running job is its instance's without a renewal (renewed every third of it); a job whose instance died is taken over by another once it runs out",
  }),
  OBSCURA_RUN_JOBS: setting({
    parse: bool, default: 'on', at: 'jobs.run',
    doc: '`off`: this instance answers requests but runs no job (others do)',
  }),
  OBSCURA_SWEEP_INTERVAL: setting({
    parse: timer.refine((ms) => ms >= 1000, 'must be at least 1s'), default: '1m', at: 'sweepIntervalMs',
    doc: 'how often expired uploads, results, web sessions and links are destroyed (and, with `OBSCURA_BLOB_URL`, multipart uploads a dead instance left unfinished for a day are aborted)',
  }),
  OBSCURA_CLEARNET_LISTEN: setting({
    parse: listen(false), default: '127.0.0.1:8080', at: 'listen.clearnet',
    doc: '`host:port`, `unix:/abs/path`, or `off`',
  }),
  OBSCURA_ONION_LISTEN: setting({
    parse: listen(true), default: '127.0.0.1:8081', at: 'listen.onion',
    doc: 'loopback or unix socket only (tor is the only way in), or `off`',
  }),
  OBSCURA_I2P_LISTEN: setting({
    parse: listen(true), default: '127.0.0.1:8082', at: 'listen.i2p',
    doc: 'loopback or unix socket only (i2pd is the only way in), or `off`',
  }),
  OBSCURA_METRICS_LISTEN: setting({
    parse: listen(false), default: 'off', at: 'metrics.listen',
    doc: 'where `GET /metrics` (Prometheus text) is served, on a listener of its own (see "Metrics"): `host:port` on loopback, `unix:/abs/path`, or `off`; another address is refused at start unless the next setting allows it',
  }),
  OBSCURA_METRICS_ALLOW_REMOTE: setting({
    parse: bool, default: 'false', at: 'metrics.allowRemote',
    doc: '`true`: `OBSCURA_METRICS_LISTEN` may be a non-loopback address (metrics show when and how much the service is used: firewall it to your Prometheus)',
  }),
  // the three origins: no `at`; loadConfig makes origin, originSet and onionLocation of them and the listen addresses
  OBSCURA_CLEARNET_ORIGIN: setting({
    parse: origin.optional(), default: undefined, shown: 'from the listen address',
    doc: 'origin of every URL handed out on the clearnet',
  }),
  OBSCURA_ONION_ORIGIN: setting({
    parse: origin.optional(), default: undefined, shown: 'from the listen address',
    doc: 'e.g. `http://<56 chars>.onion`',
  }),
  OBSCURA_I2P_ORIGIN: setting({
    parse: origin.optional(), default: undefined, shown: 'from the listen address',
    doc: 'e.g. `http://<52 chars>.b32.i2p`',
  }),
  OBSCURA_MASTER_KEY: setting({
    parse: z.string().optional(), default: undefined, at: 'masterKey.inline', secret: true,
    doc: "32 bytes, base64; wraps every object's data key",
  }),
  // no `at`: masterKey.file, resolved in the data folder by loadConfig
  OBSCURA_MASTER_KEY_FILE: setting({
    parse: z.string().optional(), default: undefined, shown: '`<data>/master.key`',
    doc: 'used when `OBSCURA_MASTER_KEY` is unset; created on first start, loudly',
  }),
  OBSCURA_KEY_PREFIX: setting({
    parse: prefix, default: 'sw_', at: 'keyPrefix.current',
    doc: 'prefix of new API keys',
  }),
  OBSCURA_KEY_FORMER_PREFIXES: setting({
    parse: prefixes, default: 'obs_', at: 'keyPrefix.former',
    doc: 'comma-separated prefixes that stay valid',
  }),
  OBSCURA_DIRECT_UPLOAD_MAX: setting({
    parse: bytes, default: '100MiB', at: 'limits.directUploadMax',
    doc: 'cap of `POST /api/upload`',
  }),
  OBSCURA_CHUNK_MAX: setting({
    parse: bytes, default: '5MiB', at: 'limits.chunkMax',
    doc: 'largest resumable chunk',
  }),
  OBSCURA_FILE_MAX: setting({
    parse: bytes, default: '2GiB', at: 'limits.fileMax',
    doc: 'largest file',
  }),
  OBSCURA_SESSION_LIFE: setting({
    parse: duration, default: '24h', at: 'limits.sessionLifeMs',
    doc: 'life of a session',
  }),
  OBSCURA_MEDIA_URL_LIFE: setting({
    parse: duration, default: '24h', at: 'limits.mediaUrlLifeMs',
    doc: 'life of a v1 media-url',
  }),
  OBSCURA_V1_PATCH_DONE_STATUS: setting({
    parse: z.enum(['204', '200']), default: '204', at: 'v1.patchDoneStatus', to: (status) => (status === '200' ? 200 : 204),
    doc: "the status of v1's chunk `PATCH` that completes an upload: `204`, as the v1 specification gives, or `200` for old v1 clients that take anything but 200 for a failure (the body is then `{key, offset}`, like every other chunk's); any other value stops the start",
  }),
  // also media.maxRevealFiles, by loadConfig
  OBSCURA_SESSION_MAX_FILES: setting({
    parse: int(1, 1000), default: '20', at: 'limits.sessionMaxFiles',
    doc: 'files per analyse or convert session',
  }),
  OBSCURA_SCRATCH_DIR: setting({
    parse: z.string().min(1), default: '/dev/shm', at: 'scratchDir',
    doc: 'memory-backed folder for media tools; a warning is logged if it is on disk',
  }),
  OBSCURA_WORKERS: setting({
    parse: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]),
    default: 'auto',
    at: 'jobs.workers',
    to: (n) => (n === 'auto' ? os.availableParallelism() : n),
    shown: '`auto` (cores)',
    doc: 'worker threads for media work, and jobs run at once',
  }),
  OBSCURA_JOB_TIME_LIMIT: setting({
    parse: timer, default: '15m', at: 'jobs.timeLimitMs',
    doc: 'a job running longer is stopped and fails',
  }),
  OBSCURA_RESULT_EXPIRY_DEFAULT: setting({
    parse: duration, default: '1d', at: 'jobs.expiryDefaultMs',
    doc: 'results life when a job names no `expiry`',
  }),
  OBSCURA_RESULT_EXPIRY_MAX: setting({
    parse: duration, default: '7d', at: 'jobs.expiryMaxMs',
    doc: 'longest `expiry` a job may ask for',
  }),
  OBSCURA_MAX_PIXELS: setting({
    parse: int(1, 1_000_000_000), default: '50000000', at: 'media.maxPixels',
    doc: 'largest image, checked from the header before decoding',
  }),
  OBSCURA_MAX_FRAMES: setting({
    parse: int(1, 1_000_000), default: '1000', at: 'media.maxFrames',
    doc: 'most frames of an animated image',
  }),
  OBSCURA_ANALYSE_VIDEO_FRAMES: setting({
    parse: int(1, 1000), default: '12', at: 'media.analyseVideoFrames',
    doc: 'frames of a video sampled for the still-image analyses (forensics, faces, text, LSB steganalysis of lossless video), 1–1000; about 0.45 s each at 720p',
  }),
  OBSCURA_MAX_VIDEO_DURATION: setting({
    parse: duration, default: '1h', at: 'media.maxDurationS', to: (ms) => Math.floor(ms / 1000),
    doc: 'longest video',
  }),
  // no `at`: media.maxVideoWidth and media.maxVideoHeight, by loadConfig
  OBSCURA_MAX_VIDEO_RESOLUTION: setting({
    parse: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'expected WIDTHxHEIGHT, such as 7680x4320'), default: '7680x4320',
    doc: 'largest video frame',
  }),
  OBSCURA_MAX_REVEAL_BYTES: setting({
    parse: bytes.refine((n) => n >= 1, 'must be at least 1 byte'), default: '512MiB', at: 'media.maxRevealBytes',
    doc: "bytes one reveal may give back, every hidden file together (at least 1 byte); a reveal also gives back no more than the file's capacity, which is all a hide could have put in it, and no more files than `OBSCURA_SESSION_MAX_FILES`. Checked from the sizes the sealed container declares, before anything is inflated; over it the job fails with `reveal_too_large`. A hide of more is refused at start (422 `secret_too_large`). The files are inflated into scratch (memory) before they are stored",
  }),
  OBSCURA_REVEAL_TOOL_TIMEOUT: setting({
    parse: timer.refine((ms) => ms >= 1000, 'must be at least 1s'), default: '2m', at: 'media.revealToolTimeoutMs',
    doc: "time each of steghide, outguess and stegosuite may take when a reveal asks them for a file another tool hid (at least `1s`); one over it is stopped and the reveal goes on to the next, or answers `nothing_found`",
  }),
  OBSCURA_STEGOSUITE_MAX_PIXELS: setting({
    parse: int(0, 1_000_000_000), default: '4000000', at: 'media.stegosuiteMaxPixels',
    doc: "largest PNG or BMP a reveal gives to stegosuite (`0`: none): its extraction time grows faster than the pixels (3 s for 0.75 MP, 15 s for 3 MP, 220 s for 12 MP on two cores, a wrong passphrase alike), and its JVM holds about 100 bytes a pixel, so a larger picture would cost every mistyped passphrase minutes. Larger pictures are still read by this service and, for BMP, steghide",
  }),
  OBSCURA_CONVERT_CPU_BUDGET: setting({
    parse: timer.refine((ms) => ms >= 1000, 'must be at least 1s'), default: '10m', at: 'convert.cpuBudgetMs',
    doc: "CPU time one file's conversion may use (at least `1s`); a file over it fails with `cpu_budget_exceeded`. 1080p costs about 1 CPU-second per second of video in H.264 and 1.5 in H.265 here",
  }),
  // these two: no `at`; loadConfig makes memory of them
  OBSCURA_MEDIA_MEMORY_BUDGET: setting({
    parse: autoOr(bytes.refine((n) => n >= 256 * MiB, 'must be at least 256MiB')), default: 'auto', shown: "`auto` (half the machine's memory)",
    doc: "memory this instance's media jobs may hold together (at least `256MiB`); a job waits while the jobs running hold too much for its estimate to fit (**Memory budget** in [design.md](design.md#how-it-is-built))",
  }),
  OBSCURA_MEDIA_MEMORY_PER_JOB: setting({
    parse: autoOr(bytes.refine((n) => n >= 256 * MiB, 'must be at least 256MiB')), default: 'auto', shown: '`auto` (the budget)',
    doc: 'memory one job may need; a file whose estimate is over it (or over the budget) is refused with `too_much_memory`, naming the estimate, the limit and the setting',
  }),
  // these two: no `at`; loadConfig reads the files into c2paTrustAnchors
  OBSCURA_C2PA_TRUST_ANCHORS: setting({
    parse: z.string().optional(), default: undefined, shown: 'the shipped list',
    doc: 'PEM file of the C2PA signers the analysis trusts, in place of the C2PA Conformance Program\'s trust list shipped in `src/media/analyse/c2pa-trust/` (see "C2PA trust list" below); `none`: no signer is trusted (every valid signature reads `trusted: false`)',
  }),
  OBSCURA_C2PA_EXTRA_TRUST_ANCHORS: setting({
    parse: z.string().optional(), default: undefined, shown: 'none',
    doc: "PEM file of more C2PA signers to trust, added to the list above (e.g. an organisation's own signing authority)",
  }),
  OBSCURA_OCR_RECYCLE_AFTER: setting({
    parse: int(1, 100_000), default: '25', at: 'ocr.recycleAfter',
    doc: 'readings (one per picture or frame, whole or in crops) a tesseract.js worker does before it is replaced (its wasm memory only grows); each media worker thread has one OCR worker at most, ended after a minute idle',
  }),
  OBSCURA_LOG_LEVEL: setting({
    parse: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), default: 'info', at: 'logLevel',
    doc: 'pino level',
  }),
  OBSCURA_MAINTENANCE: setting({
    parse: bool, default: 'off', at: 'maintenance.on',
    doc: 'every route answers 503 `{"status":"MAINTENANCE"}`',
  }),
  OBSCURA_MAINTENANCE_RETRY_AFTER: setting({
    parse: int(1, 86_400), default: '300', at: 'maintenance.retryAfterS',
    doc: 'seconds, sent as `Retry-After`',
  }),
  // abuse resistance: connections, slow bodies, rate limits (docs/api.md "Limits")
  OBSCURA_MAX_CONNECTIONS: setting({
    parse: int(1, 1_000_000), default: '512', at: 'abuse.maxConnections',
    doc: 'open connections per listener; the next ones get 503 `too_many_connections` (`Retry-After: 5`), and past twice as many Node refuses them at accept (only a count is logged)',
  }),
  OBSCURA_HEADERS_TIMEOUT: setting({
    parse: timer, default: '30s', at: 'abuse.headersTimeoutMs',
    doc: "time to send the request headers (and, on the onion listener, tor's PROXY line)",
  }),
  OBSCURA_REQUEST_TIMEOUT: setting({
    parse: timer, default: '1h', at: 'abuse.requestTimeoutMs',
    doc: 'the whole request, body included; longer than `OBSCURA_HEADERS_TIMEOUT`. Use TUS for what takes longer',
  }),
  OBSCURA_MIN_BODY_RATE: setting({
    parse: bytes, default: '1KiB', at: 'abuse.minBodyRate',
    doc: 'bytes a second every request body must keep up; slower is 408 `body_too_slow`; `0` turns the watch off',
  }),
  OBSCURA_MIN_BODY_RATE_WINDOW: setting({
    parse: timer, default: '30s', at: 'abuse.minBodyRateWindowMs',
    doc: 'the window the body rate is measured over',
  }),
  OBSCURA_MAX_UPLOADS_PER_ACCOUNT: setting({
    parse: int(1, 10_000), default: '4', at: 'abuse.maxUploadsPerAccount',
    doc: 'upload requests (direct, TUS, v1 chunk) under way at once per account',
  }),
  OBSCURA_RATE_REQUESTS_PER_MINUTE: setting({
    parse: int(1, 1_000_000_000), default: '600', at: 'abuse.requestsPerMinute',
    doc: 'authenticated requests a minute per account',
  }),
  OBSCURA_RATE_JOBS_PER_HOUR: setting({
    parse: int(1, 1_000_000_000), default: '60', at: 'abuse.jobsPerHour',
    doc: 'job starts an hour per account (`POST /api/job`, `/api/convert/job`, `/api/analyse/job`, `/v1/job/analyse`, the MCP `start_*_job` tools); a refused start does not count',
  }),
  OBSCURA_RATE_UPLOAD_PER_HOUR: setting({
    parse: bytes, default: '20GiB', at: 'abuse.uploadBytesPerHour',
    doc: 'uploaded bytes an hour per account, counted as they arrive',
  }),
  OBSCURA_RATE_VISITOR_PER_MINUTE: setting({
    parse: int(1, 1_000_000_000), default: '600', at: 'abuse.visitorPerMinute',
    doc: 'requests a minute per Tor circuit (onion) or per I2P destination; connections whose PROXY line says `UNKNOWN`, and I2P requests without `X-I2P-DestHash`, count together as one visitor; so do the MCP messages that need no key (`/mcp`, clearnet), unless `OBSCURA_CLEARNET_CLIENT_HEADER` names their client',
  }),
  OBSCURA_RATE_BAD_KEYS: setting({
    parse: int(1, 1_000_000_000), default: '50', at: 'abuse.badKeys.limit',
    doc: 'wrong keys (401 `invalid_api_key`) the whole service takes per window before it brakes',
  }),
  OBSCURA_RATE_BAD_KEYS_WINDOW: setting({
    parse: timer, default: '1m', at: 'abuse.badKeys.windowMs',
    doc: 'the window those are counted over',
  }),
  OBSCURA_RATE_BAD_KEYS_BRAKE: setting({
    parse: timer, default: '5m', at: 'abuse.badKeys.brakeMs',
    doc: 'how long the brake lasts: only keys that authenticated before are checked, every other key is 429',
  }),
  OBSCURA_ONION_PROXY_PROTOCOL: setting({
    parse: z.enum(['required', 'off']), default: 'required', at: 'abuse.onionProxyProtocol',
    doc: "the onion listener reads tor's PROXY protocol v1 line (`HiddenServiceExportCircuitID haproxy`, as shipped) and refuses a connection without one (400); `off` for an onion listener without it",
  }),
  OBSCURA_MCP_BATCH_ANSWER_MAX: setting({
    parse: bytes.refine((n) => n >= 1024, 'must be at least 1KiB'), default: '256KiB', at: 'abuse.mcpBatchAnswerMax',
    doc: "the answers to one JSON-RPC batch on `/mcp` together (at least `1KiB`); past it, each further answer is left out with the error `batch_answer_too_large` (a single message's answer is never cut)",
  }),
  // the web pages for people (docs/people.md)
  OBSCURA_SMTP_URL: setting({
    parse: smtpUrl.optional(), default: undefined, at: 'web.smtpUrl', secret: true,
    doc: 'the mail relay for sign-up links, `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://…`. Unset: no mail, no outbound connection, sign-up closed (the CLI adds accounts). Never logged or echoed in errors',
  }),
  OBSCURA_MAIL_FROM: setting({
    parse: z.string().regex(/^[^\r\n<>]*(<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'expected an address, such as Obscura <noreply@example.org>'),
    default: 'Obscura <noreply@obscura.invalid>',
    at: 'web.mailFrom',
    doc: 'sender of those mails',
  }),
  OBSCURA_WEB_SESSION_IDLE: setting({
    parse: duration, default: '30m', at: 'web.sessionIdleMs',
    doc: 'a web sign-in ends after this long without a request',
  }),
  OBSCURA_WEB_SESSION_MAX: setting({
    parse: duration, default: '12h', at: 'web.sessionMaxMs',
    doc: 'and after this long in any case',
  }),
  OBSCURA_VERIFY_LINK_LIFE: setting({
    parse: duration, default: '24h', at: 'web.verifyLinkLifeMs',
    doc: 'life of an address-verification link (single use; it also carries the "refuse" link)',
  }),
  OBSCURA_RESET_LINK_LIFE: setting({
    parse: duration, default: '30m', at: 'web.resetLinkLifeMs',
    doc: 'life of a mailed password-reset link (single use)',
  }),
  OBSCURA_SIGN_IN_LINK_LIFE: setting({
    parse: duration, default: '15m', at: 'web.signInLinkLifeMs',
    doc: 'life of a mailed sign-in link (single use)',
  }),
  OBSCURA_UNVERIFIED_ACCOUNT_LIFE: setting({
    parse: duration, default: '24h', at: 'web.unverifiedAccountLifeMs',
    doc: 'an account whose address is not verified within this is deleted by the sweep (with its keys, sessions and links)',
  }),
  OBSCURA_SIGN_IN_FAILURES: setting({
    parse: int(1, 1_000_000), default: '20', at: 'web.signInFailures',
    doc: "failed password sign-ins per address in the window; past it that address's *password* is 429 for everyone, while its API keys and a mailed sign-in link still sign in",
  }),
  OBSCURA_SIGN_IN_FAILURES_PER_VISITOR: setting({
    parse: int(1, 1_000_000), default: '5', at: 'web.signInFailuresPerVisitor',
    doc: "failed sign-ins per visitor (Tor circuit, I2P destination, clearnet client) in the window; that visitor's next sign-in is 429 with `Retry-After`",
  }),
  OBSCURA_SIGN_IN_FAILURES_TOTAL: setting({
    parse: int(1, 1_000_000_000), default: '1000', at: 'web.signInFailuresTotal',
    doc: 'failed sign-ins for all together in the window, past which every sign-in waits `OBSCURA_WEB_SLOWDOWN` (a slow-down, never a refusal)',
  }),
  OBSCURA_SIGN_IN_WINDOW: setting({
    parse: timer, default: '15m', at: 'web.signInWindowMs',
    doc: 'the window those are counted over',
  }),
  OBSCURA_SIGN_UPS_PER_HOUR: setting({
    parse: int(1, 1_000_000_000), default: '100', at: 'web.signUpsPerHour',
    doc: 'sign-ups and mailed-link requests an hour for all together, past which each waits `OBSCURA_WEB_SLOWDOWN` (never refused)',
  }),
  OBSCURA_SIGN_UPS_PER_VISITOR: setting({
    parse: int(1, 1_000_000), default: '3', at: 'web.signUpsPerVisitor',
    doc: 'sign-ups an hour per visitor',
  }),
  OBSCURA_MAIL_REQUESTS_PER_VISITOR: setting({
    parse: int(1, 1_000_000), default: '5', at: 'web.mailRequestsPerVisitor',
    doc: 'password-reset and sign-in-link requests an hour per visitor',
  }),
  OBSCURA_MAILS_PER_ADDRESS: setting({
    parse: int(1, 1000), default: '5', at: 'web.mailsPerAddress',
    doc: "mails (sign-up, resent link) one address gets an hour. Reset and sign-in links are not counted here: an address gets one of each per link life, whoever asks, so a stranger can neither fill the mailbox nor use up the owner's mail",
  }),
  OBSCURA_VERIFY_ATTEMPTS_PER_MINUTE: setting({
    parse: int(1, 1_000_000_000), default: '10', at: 'web.verifyAttemptsPerMinute',
    doc: 'mailed links that do not work (unknown, used, expired) a minute per visitor',
  }),
  OBSCURA_VERIFY_ATTEMPTS_TOTAL: setting({
    parse: int(1, 1_000_000_000), default: '300', at: 'web.verifyAttemptsTotal',
    doc: 'the same for all together, past which each try waits `OBSCURA_WEB_SLOWDOWN`',
  }),
  OBSCURA_WEB_SLOWDOWN: setting({
    parse: timer, default: '2s', at: 'web.slowdownMs',
    doc: 'how long a sign-in, sign-up or link waits once a shared threshold above is passed; `0`: no wait',
  }),
  OBSCURA_CLEARNET_CLIENT_HEADER: setting({
    parse: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'expected a header name, such as X-Forwarded-For').transform((h) => h.toLowerCase()).optional(),
    default: undefined,
    at: 'web.clearnetClientHeader',
    doc: "the header in which the operator's clearnet proxy names the client (e.g. `X-Forwarded-For`; its last value is used), so the brakes above tell clearnet visitors apart; unset: the connection's peer, unless it is this machine (a local proxy, a Unix socket): then all clearnet visitors share one name, and a shared name's brakes only slow down (`OBSCURA_WEB_SLOWDOWN`) rather than refuse, as for an onion connection without its circuit or I2P without its destination (set it). The proxy must replace any such header a client sent. Only an HMAC of it is kept, in the brakes' counters; it is never logged",
  }),
};

export type SettingName = keyof typeof SETTINGS;
/** Each setting's parsed value, by variable name. */
export type Parsed = { [N in SettingName]: z.output<(typeof SETTINGS)[N]['parse']> };

/** 'a.b' and V make { a: { b: V } }; a value that may be undefined makes an optional field. */
type Nest<P extends string, V> = P extends `${infer H}.${infer R}`
  ? { [K in H]: Nest<R, V> }
  : undefined extends V
    ? { [K in P]?: V }
    : { [K in P]: V };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** An intersection of nested objects, written out as one object (for readable types and errors). */
export type Expand<T> = T extends (...args: never[]) => unknown ? T : T extends object ? { [K in keyof T]: Expand<T[K]> } : T;

/** The part of Config the settings fill, each at its `at`. */
export type Placed = Expand<
  Intersect<{ [N in SettingName]: (typeof SETTINGS)[N] extends Setting<any, infer P, infer V> ? Nest<P, V> : never }[SettingName]>
>;
