// kopt:tune TM range=2..8 step=+2 role=thread_tile_y default=4
// kopt:tune TN values=2,4,8 role=thread_tile_x
// kopt:tune BK values=8,16,32 role=tile_k
// kopt:restrict 128 * 128 / (TM * TN) <= 1024
// kopt:restrict rows / BK != 0
/* TM TN */ int a = TM * TN * BK;
