// What a result row and an observation event both say about their request (Mnemoverse evaluation schemas 0.1).
import { Type } from 'typebox';

export const DateTime = () => Type.String({ format: 'date-time' });

/** The request and who made it, through what. */
export const requestFields = {
  request_id: Type.String(),
  agent_id: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  layer: Type.Optional(Type.String()),
  model_id: Type.Optional(Type.String()),
  tool_id: Type.Optional(Type.String()),
};
