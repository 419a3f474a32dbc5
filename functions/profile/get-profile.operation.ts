import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'getProfile',
  method: 'GET',
  path: '/profile',
  entry: 'functions/profile/get-profile.ts',
  auth: 'user',
  tag: 'profile',
  summary: "The caller's own profile",
  needs: {},
});
