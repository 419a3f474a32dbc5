import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    // Hooks start the local runtime (Java and node): seconds when idle, minutes on a loaded machine.
    hookTimeout: 180_000,
    // Two cores: keep DynamoDB Local, the runtimes and the test workers from starving each other.
    maxWorkers: 2,
    env: {
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The SDK clients take region and credentials from the environment, as on Lambda;
      // placeholders here (nothing in the tests reaches AWS), so no client looks further.
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
  },
});
