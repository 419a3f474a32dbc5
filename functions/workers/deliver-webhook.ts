export const handler = async (): Promise<never> => {
  throw new Error('deliverWebhook is not implemented yet');
};
