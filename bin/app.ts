import { App } from 'aws-cdk-lib';
import { addServiceStacks, resourceCounts } from '../infra/service-app.js';

const app = new App();
addServiceStacks(app);
// What each stack holds, on stderr (stdout may carry a template): `npm run synth` shows it.
for (const line of resourceCounts(app.synth())) console.error(line);
