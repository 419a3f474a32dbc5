export const handler = async (): Promise<never> => {
  throw new Error('sweepDeliveries is not implemented yet');
};
