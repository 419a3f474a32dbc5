/** Who is calling, as established by a valid access token with a live session. */
export interface Principal {
  userId: string;
  sessionId: string;
}
