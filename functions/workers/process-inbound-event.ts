export const handler = async (): Promise<never> => {
  throw new Error('processInboundEvent is not implemented yet');
};
