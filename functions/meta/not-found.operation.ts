import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'notFound',
  method: 'ANY',
  path: '/{proxy+}',
  entry: 'functions/meta/not-found.ts',
  auth: 'none',
  tag: 'meta',
  title: 'Unknown path',
  summary: 'What no operation serves: the 404 envelope, with the headers of every answer',
  needs: {},
});
