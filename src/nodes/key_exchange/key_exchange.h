/*-------------------------------------------------------------------------
 *
 * key_exchange.h
 *	  KeyExchange, the custom scan that exchanges a key-partitioned join's
 *	  input rows by partition (key_exchange.c).
 *
 * src/nodes/key_exchange/key_exchange.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef KEY_EXCHANGE_H
#define KEY_EXCHANGE_H

#include "nodes/plannodes.h"
#include "nodes/primnodes.h"

extern Plan *wj_key_exchange_insert(Plan *input, Expr *key, Expr *hash31,
									Param *param, int units, int grain);
extern void wj_key_exchange_register(void);

#endif							/* KEY_EXCHANGE_H */
