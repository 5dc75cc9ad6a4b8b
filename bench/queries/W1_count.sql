SELECT count(*) || '|' FROM bids
