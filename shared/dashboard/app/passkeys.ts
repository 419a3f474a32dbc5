import {
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { ApiError } from '../../http/client/api-client.js';

/**
 * The browser's passkey prompts, with the options the API answered (the WebAuthn JSON forms
 * @simplewebauthn/browser takes). A prompt the person closed, or one that timed out, is said as
 * such rather than as a failure of the page.
 */

async function prompted<T extends { clientExtensionResults: object }>(
  ceremony: () => Promise<T>,
): Promise<
  Omit<T, 'clientExtensionResults'> & { clientExtensionResults: Record<string, unknown> }
> {
  try {
    const response = await ceremony();
    // As the API's document types it: a plain record (no extensions are asked for).
    return {
      ...response,
      clientExtensionResults: Object.fromEntries(Object.entries(response.clientExtensionResults)),
    };
  } catch (error) {
    if (error instanceof Error && error.name === 'NotAllowedError') {
      throw new ApiError(0, 'passkey_cancelled', 'The passkey prompt was closed or timed out.');
    }
    throw new ApiError(
      0,
      'passkey_unavailable',
      error instanceof Error ? error.message : 'This browser could not use a passkey.',
    );
  }
}

export const createPasskey = (options: object) =>
  prompted<RegistrationResponseJSON>(() =>
    startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON }),
  );

export const signWithPasskey = (options: object) =>
  prompted<AuthenticationResponseJSON>(() =>
    startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON }),
  );
