import { App } from 'aws-cdk-lib';
import { addServiceStack } from '../infra/service-app.js';

addServiceStack(new App());
