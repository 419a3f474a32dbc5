// What `@node-rs/argon2` is in an x86_64 Lambda bundle: the binary beside index.mjs, nothing else
// (infra/native-binding.ts).
module.exports = require('./argon2.linux-x64-gnu.node');
