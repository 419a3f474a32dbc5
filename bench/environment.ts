/**
 * Settings for the service code the bench runs in this process, applied before any of it is
 * imported. Anything already set in the environment wins.
 */
// The bench sends thousands of requests a minute from one address: the per-client limit would
// measure 429s. The limiter's DynamoDB call still happens and is counted.
process.env.RATE_LIMIT_PER_MINUTE ??= '100000000';
// One log line per request would cost CPU the figures should not carry, and flood the table.
process.env.LOG_LEVEL ??= 'silent';
// Webhook endpoints on loopback (the bench's own receivers) must be accepted.
process.env.WEBHOOK_ALLOW_PRIVATE_NETWORK ??= 'true';
// Lambda runs Node 22; on a Node 20 workstation the SDK's upgrade notice is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
