/**
 * The stub `bench/sdk-call.ts` calls, in a process of its own: a GetItem answers one session
 * item (DynamoDB's JSON protocol), a SendMessage its message id and the body's MD5, as SQS
 * does (the SDK checks it). Sends its port to the parent once listening.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const item = JSON.stringify({
  Item: {
    pk: { S: 'SESSION#bench' },
    sk: { S: 'SESSION' },
    user_id: { S: 'usr_bench' },
    family: { S: 'fam_bench' },
    generation: { N: '3' },
    expires_at: { N: '1790000000' },
  },
});

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  request.on('end', () => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const answer = target.startsWith('AmazonSQS')
      ? JSON.stringify({
          MessageId: 'msg_bench',
          MD5OfMessageBody: createHash('md5')
            .update((JSON.parse(body) as { MessageBody: string }).MessageBody)
            .digest('hex'),
        })
      : item;
    response.writeHead(200, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': 'bench',
    });
    response.end(answer);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send?.((server.address() as AddressInfo).port);
});
