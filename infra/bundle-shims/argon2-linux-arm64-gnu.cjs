// What `@node-rs/argon2` is in an ARM64 Lambda bundle: the binary beside index.mjs, nothing else
// (infra/native-binding.ts).
module.exports = require('./argon2.linux-arm64-gnu.node');
